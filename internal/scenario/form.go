package scenario

import (
	"strconv"
	"strings"
)

// The members of an operator condition.
const (
	keyField    = "field"
	keyOperator = "operator"
	keyValue    = "value"
)

// operatorKeys are the members an operator condition may have, in the
// order suggestions prefer them.
var operatorKeys = []string{keyField, keyOperator, keyValue}

// IsOperatorForm reports whether an object condition with these member
// names is read as an operator condition: one member is named field or
// operator (in any case), and another is too, or is a misspelling of one
// of them (see nearKey). Every other object is a plain condition. An
// operator condition must then have exactly field, operator and, for the
// operators that take one, value: a misspelt member is refused rather
// than read as an equality on an argument of that name.
func IsOperatorForm(names []string) bool {
	anchored, alike := false, 0
	for _, n := range names {
		switch {
		case strings.EqualFold(n, keyField) || strings.EqualFold(n, keyOperator):
			anchored = true
			alike++
		case nearKey(n, keyField) || nearKey(n, keyOperator):
			alike++
		}
	}
	return anchored && alike >= 2
}

// nearKey reports whether name is a misspelling of key: not key itself,
// and within one edit of it (two for operator, the longer word). An edit
// inserts, deletes or changes a letter, or swaps two neighbours. The
// bounds keep ordinary argument names apart ("file" is two edits from
// field, "values" one from value, "operand" three from operator).
func nearKey(name, key string) bool {
	if name == key {
		return false
	}
	most := 1
	if key == keyOperator {
		most = 2
	}
	return editDistance(name, key, most) <= most
}

// suggestKey is the member of an operator condition that name is a
// misspelling of, or "".
func suggestKey(name string) string {
	for _, k := range operatorKeys {
		if strings.EqualFold(name, k) || nearKey(name, k) {
			return k
		}
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and swaps of neighbours, in
// bytes), or more than most when it exceeds most.
func editDistance(a, b string, most int) int {
	if d := len(a) - len(b); d > most || -d > most {
		return most + 1
	}
	// Three rows: two back for a swap, the previous and the current.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// memberField names a member of an operator condition, as FieldError's
// Field does: condition.<name> for a name of letters, digits and '_',
// else condition["<name>"].
func memberField(name string) string {
	if name != "" && strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return fieldCondition + "." + name
	}
	return fieldCondition + "[" + strconv.Quote(name) + "]"
}
