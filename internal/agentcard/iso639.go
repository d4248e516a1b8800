package agentcard

import (
	"fmt"
	"strings"
)

// iso6391 is the complete list of current ISO 639-1 two-letter language
// codes: 183 codes, as the registration authority counts them since June
// 2021. It is the Library of Congress's ISO 639-2 table's set of alpha-2
// codes (184, as also shipped in Debian's iso-codes) less bh, Bihari
// languages, which ISO 639-1 has deprecated: a collective code names no one
// language a caller can be answered in, and its members (Bhojpuri, Magahi,
// Maithili) have no two-letter codes. A list rather than a pattern, because
// "xx" has the shape of a code and names no language.
var iso6391 = []string{
	"aa", "ab", "ae", "af", "ak", "am", "an", "ar", "as", "av", "ay", "az",
	"ba", "be", "bg", "bi", "bm", "bn", "bo", "br", "bs",
	"ca", "ce", "ch", "co", "cr", "cs", "cu", "cv", "cy",
	"da", "de", "dv", "dz",
	"ee", "el", "en", "eo", "es", "et", "eu",
	"fa", "ff", "fi", "fj", "fo", "fr", "fy",
	"ga", "gd", "gl", "gn", "gu", "gv",
	"ha", "he", "hi", "ho", "hr", "ht", "hu", "hy", "hz",
	"ia", "id", "ie", "ig", "ii", "ik", "io", "is", "it", "iu",
	"ja", "jv",
	"ka", "kg", "ki", "kj", "kk", "kl", "km", "kn", "ko", "kr", "ks", "ku", "kv", "kw", "ky",
	"la", "lb", "lg", "li", "ln", "lo", "lt", "lu", "lv",
	"mg", "mh", "mi", "mk", "ml", "mn", "mr", "ms", "mt", "my",
	"na", "nb", "nd", "ne", "ng", "nl", "nn", "no", "nr", "nv", "ny",
	"oc", "oj", "om", "or", "os",
	"pa", "pi", "pl", "ps", "pt",
	"qu",
	"rm", "rn", "ro", "ru", "rw",
	"sa", "sc", "sd", "se", "sg", "si", "sk", "sl", "sm", "sn", "so", "sq", "sr", "ss", "st", "su", "sv", "sw",
	"ta", "te", "tg", "th", "ti", "tk", "tl", "tn", "to", "tr", "ts", "tt", "tw", "ty",
	"ug", "uk", "ur", "uz",
	"ve", "vi", "vo",
	"wa", "wo",
	"xh",
	"yi", "yo",
	"za", "zh", "zu",
}

var isLanguage = func() map[string]bool {
	set := make(map[string]bool, len(iso6391))
	for _, code := range iso6391 {
		set[code] = true
	}
	return set
}()

// withdrawnLanguages are the codes ISO 639-1 once had and withdrew, with
// what to write instead: old software and old documents still produce them.
var withdrawnLanguages = map[string]string{
	"bh": "it has no two-letter successor",
	"in": "use id",
	"iw": "use he",
	"ji": "use yi",
	"jw": "use jv",
	"mo": "use ro",
	"sh": "use sr, hr or bs",
}

// languageProblem explains why code is not a current ISO 639-1 code, or
// returns "", with a hint for the usual near misses: capitals, a region
// or script subtag (en-US), a withdrawn code, a three-letter code.
func languageProblem(code string) string {
	const want = "must be an ISO 639-1 language code such as en or fr"
	if isLanguage[code] {
		return ""
	}
	if lower := strings.ToLower(code); isLanguage[lower] {
		return fmt.Sprintf("%s, in lowercase: %s", want, lower)
	}
	if hint, ok := withdrawnLanguages[code]; ok {
		return fmt.Sprintf("%s; %s was withdrawn, %s", want, code, hint)
	}
	if lang, _, ok := strings.Cut(strings.ReplaceAll(code, "_", "-"), "-"); ok && isLanguage[strings.ToLower(lang)] {
		return fmt.Sprintf("%s; write the language alone (%s), without a region or script", want, strings.ToLower(lang))
	}
	if len(code) == 3 {
		return want + "; three-letter codes (ISO 639-2 and 639-3) are not accepted"
	}
	return want
}
