package readme_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// documents are the Markdown files whose links are checked, relative to
// the module root: the README and the contributor guide it links to.
var documents = []string{"README.md", "internal/README.md"}

var (
	headingRE = regexp.MustCompile(`^#{1,6} +(.*?)\s*$`)
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchorRE  = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// prose returns the lines of a Markdown document outside fenced blocks, by
// line number, since a `# comment` in a shell example is no heading.
func prose(text string) map[int]string {
	lines := map[int]string{}
	in := false
	for n, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if !in {
			lines[n+1] = l
		}
	}
	return lines
}

// anchors returns the anchors GitHub gives a document's headings: lower
// case, punctuation other than - and _ dropped, spaces made -, and -1, -2,
// ... after a heading's repeats.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(text) {
		m := headingRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := strings.ReplaceAll(anchorRE.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n, ok := seen[a]; ok {
			seen[a] = n + 1
			out[a+"-"+strconv.Itoa(n+1)] = true
			continue
		}
		seen[a] = 0
		out[a] = true
	}
	return out
}

// TestLinks checks that every relative link of the README and the
// contributor guide names a file of the repository and, with a #fragment,
// a heading of that file: sections move between the two documents, and a
// link left behind would lead nowhere.
func TestLinks(t *testing.T) {
	root := moduleRoot(t)
	texts := map[string]string{}
	read := func(path string) (string, bool) {
		if s, ok := texts[path]; ok {
			return s, true
		}
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			return "", false
		}
		texts[path] = string(b)
		return texts[path], true
	}
	for _, doc := range documents {
		text, ok := read(doc)
		if !ok {
			t.Fatalf("%s is missing", doc)
		}
		for n, l := range prose(text) {
			for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, fragment, _ := strings.Cut(target, "#")
				path := doc
				if file != "" {
					path = filepath.ToSlash(filepath.Join(filepath.Dir(doc), file))
				}
				if _, err := os.Stat(filepath.Join(root, path)); err != nil {
					t.Errorf("%s:%d: the link %s leads to no file", doc, n, target)
					continue
				}
				if fragment == "" {
					continue
				}
				linked, ok := read(path)
				if !ok || !anchors(linked)[fragment] {
					t.Errorf("%s:%d: the link %s names no heading of %s", doc, n, target, path)
				}
			}
		}
	}
}

// TestAnchors checks the anchor rule against headings of this README.
func TestAnchors(t *testing.T) {
	got := anchors("# mockmcp\n## Local mode: a folder of design files, no account\n```sh\n# not a heading\n```\n" +
		"#### subscriptions/listen\n## Notes\n## Notes\n")
	for _, want := range []string{"mockmcp", "local-mode-a-folder-of-design-files-no-account", "subscriptionslisten", "notes", "notes-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("a comment in a fenced block made an anchor: %v", got)
	}
}
