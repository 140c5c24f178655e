package dbexec

import "testing"

// TestTextArgs: each bind value is its text, an empty string an empty
// value (never nil, which pgx sends as NULL), and a nil []byte NULL.
func TestTextArgs(t *testing.T) {
	_, got, err := textArgs(nil, []any{"", "abc", 42, int64(-7), []byte("body"), []byte(nil)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "abc", "42", "-7", "body"}
	for i, w := range want {
		if got[i] == nil || string(got[i]) != w {
			t.Errorf("value %d: %q (nil %v), want %q", i, got[i], got[i] == nil, w)
		}
	}
	if got[5] != nil {
		t.Errorf("a nil []byte became %q, want nil (NULL)", got[5])
	}
	if _, _, err := textArgs(nil, []any{1.5}); err == nil {
		t.Error("a float64 was taken as a bind value")
	}
	tx := Tx{Role: "anon", Settings: [][2]string{{"app.x", ""}}}
	_, args := setupArgs(nil, &tx)
	if len(args) != setupFixedArgs+2 || string(args[0]) != "anon" || args[1] == nil || args[len(args)-1] == nil {
		t.Errorf("set-up values %q", args)
	}
}
