package oasimport

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxScenarioName bounds the scenario names an import makes up, shorter
// than design.MaxName.
const maxScenarioName = 100

// snake converts an identifier to snake_case: camelCase and PascalCase
// words are split ("getPetById" → "get_pet_by_id", "HTTPGetURL" →
// "http_get_url"), everything but ASCII letters and digits becomes "_",
// and runs of "_" collapse; the result may be empty.
func snake(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		r = unicode.ToLower(r)
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	parts := strings.FieldsFunc(b.String(), func(r rune) bool { return r == '_' })
	return strings.Join(parts, "_")
}

// routeName names an operation without an operationId after its method
// and path: GET /pets/{petId}/photos → get_pets_by_pet_id_photos.
func routeName(method, path string) string {
	words := []string{strings.ToLower(method)}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" {
			continue
		}
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			if w := snake(seg[1 : len(seg)-1]); w != "" {
				words = append(words, "by", w)
			}
			continue
		}
		if w := snake(seg); w != "" {
			words = append(words, w)
		}
	}
	return strings.Join(words, "_")
}

// unique returns name, or name_2, name_3... (cut to max bytes), whichever
// taken does not hold yet, and records it.
func unique(name string, max int, taken map[string]bool) string {
	name = cut(name, max)
	candidate := name
	for n := 2; taken[candidate]; n++ {
		suffix := "_" + strconv.Itoa(n)
		candidate = strings.TrimRight(cut(name, max-len(suffix)), "_") + suffix
	}
	taken[candidate] = true
	return candidate
}

// cut shortens an ASCII name to at most max bytes, without a trailing "_".
func cut(s string, max int) string {
	if len(s) > max {
		s = strings.TrimRight(s[:max], "_")
	}
	return s
}

// truncateText cuts s to at most n runes, marking the cut with "…".
func truncateText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n-1])) + "…"
}
