package naming

import (
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/config"
)

// The channel is db-channel when set, else the naming's; it reads the
// configuration only, so it does not depend on the naming in force.
func TestListenChannel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		names, channel, want string
	}{
		{"svc", "", "svc"},
		{"postgrest", "", "pgrst"},
		{"svc", "reload_here", "reload_here"},
		{"postgrest", "reload_here", "reload_here"},
	} {
		cfg := &config.Config{CompatNames: tc.names, DBChannel: tc.channel}
		if got := ListenChannel(cfg); got != tc.want {
			t.Errorf("compat-names %s, db-channel %q: channel %q, want %q", tc.names, tc.channel, got, tc.want)
		}
	}
}

// A reload may not switch the naming: the channel is listened to and
// clients use the names already.
func TestCheckUnchanged(t *testing.T) {
	t.Parallel()
	svc, pgrst := &config.Config{CompatNames: "svc"}, &config.Config{CompatNames: "postgrest"}
	if err := CheckUnchanged(svc, &config.Config{CompatNames: "svc", DBChannel: "other"}); err != nil {
		t.Errorf("same naming refused: %v", err)
	}
	err := CheckUnchanged(svc, pgrst)
	if err == nil || !strings.Contains(err.Error(), "restart") {
		t.Errorf("switching the naming: %v, want an error saying to restart", err)
	}
}

// Besides its own channel a server hears the other namings' default
// ones, each with advice naming the setting that makes it the channel;
// a db-channel set by name is the only one.
func TestOtherChannels(t *testing.T) {
	t.Parallel()
	got := OtherChannels(&config.Config{CompatNames: "svc"})
	if len(got) != 1 || !strings.Contains(got["pgrst"], "set compat-names = postgrest (or db-channel = pgrst)") {
		t.Errorf("under svc: %q, want pgrst with advice naming compat-names and db-channel", got)
	}
	got = OtherChannels(&config.Config{CompatNames: "postgrest"})
	if len(got) != 1 || !strings.Contains(got["svc"], "Notify pgrst, or set compat-names = svc (or db-channel = svc)") {
		t.Errorf("under postgrest: %q, want svc", got)
	}
	for _, names := range []string{"svc", "postgrest"} {
		if got := OtherChannels(&config.Config{CompatNames: names, DBChannel: "reload_here"}); len(got) != 0 {
			t.Errorf("compat-names %s with db-channel set: %q, want none", names, got)
		}
	}
}
