package jsonenc

import "testing"

func TestMarshalKeepsHTMLCharacters(t *testing.T) {
	got, err := Marshal(map[string]string{"text": "<b>a & b</b>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"text":"<b>a & b</b>"}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Fatal("a func encoded without error")
	}
}
