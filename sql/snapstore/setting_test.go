package snapstore

import "testing"

func TestSettingSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value, schema string
		ok            bool
	}{
		{"db", DefaultSchema, true},
		{"db:snaps", "snaps", true},
		{"db:", "", true},   // Load then says it names no schema
		{"./db", "", false}, // a file named db
		{"/etc/svc/api.msgpack", "", false},
		{"", "", false},
	} {
		schema, ok := SettingSchema(tc.value)
		if ok != tc.ok || ok && schema != tc.schema {
			t.Errorf("SettingSchema(%q) = %q, %v; want %q, %v", tc.value, schema, ok, tc.schema, tc.ok)
		}
	}
}
