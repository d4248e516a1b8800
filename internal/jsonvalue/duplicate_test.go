package jsonvalue

import "testing"

func TestFirstDuplicate(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":1,"\u0061":2}`, "a"},
		{`{"a":1,"A":2}`, ""},
		{`{"q":{"x":1,"y":{"x":2},"x":3}}`, "q.x"},
		{`{"items":[{"id":1},{"id":2,"id":3}]}`, "items[1].id"},
		{`[[{"k":[1,{"z":0,"z":0}]}]]`, "[0][0].k[1].z"},
		{`{"a":[1,2],"b":{"c":"x:y"}}`, ""},
		{`"a:b"`, ""},
		{`{"a":1,`, ""},
	} {
		if got := FirstDuplicate([]byte(tc.doc)); got != tc.want {
			t.Errorf("FirstDuplicate(%s) = %q, want %q", tc.doc, got, tc.want)
		}
	}
}
