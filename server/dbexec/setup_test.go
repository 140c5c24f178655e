package dbexec

import (
	"strings"
	"sync"
	"testing"
)

// Every variant's set-up statement, found by index or through the map
// past setupIndexed settings, is its own text, the same on every call and
// from many goroutines at once, with one pair of parameters per setting.
func TestSetupSQLVariants(t *testing.T) {
	for settings := range setupIndexed + 3 {
		for _, readOnly := range []bool{false, true} {
			for _, explain := range []bool{false, true} {
				v := setupVariant{settings: settings, readOnly: readOnly, explain: explain}
				var wg sync.WaitGroup
				got := make([]string, 4)
				for i := range got {
					wg.Add(1)
					go func() { defer wg.Done(); got[i] = setupKey(v).sql }()
				}
				wg.Wait()
				want := buildSetupSQL(v)
				for _, g := range got {
					if g != want {
						t.Fatalf("%+v: got %q, want %q", v, g, want)
					}
				}
				if n := strings.Count(want, "set_config($"); n != settings {
					t.Errorf("%+v: %d parameterised settings, want %d", v, n, settings)
				}
				if strings.Contains(want, setupReadOnly) != readOnly || strings.Contains(want, setupExplainNoJIT) != explain {
					t.Errorf("%+v: %q", v, want)
				}
			}
		}
	}
}
