package main

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestNotifyOnOtherNamingsChannel: under SVC's names, with db-channel
// unset, NOTIFY pgrst (PostgREST's channel, which its migration tools
// and event triggers notify) reloads as NOTIFY svc does, and the log says
// it came on another naming's channel, naming the settings that would
// make it the channel.
func TestNotifyOnOtherNamingsChannel(t *testing.T) {
	var logs logBuffer
	startLogging(t, map[string]string{"db-channel-enabled": "true"}, &logs)
	logs.waitFor(t, `level=NOTICE msg="listening for notifications" channel=svc also=pgrst`)

	conn, err := pgx.Connect(context.Background(), authURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "notify pgrst, 'reload schema'"); err != nil {
		t.Fatal(err)
	}
	logs.waitFor(t, `level=NOTICE msg="notification on another channel than this server's: pgrst is the channel of `+
		`compat-names = postgrest, and this server runs under compat-names = svc, whose channel is svc; acting on it all the same. `+
		`Notify svc, or set compat-names = postgrest \(or db-channel = pgrst\) to make pgrst the channel; `+
		`compat-names = postgrest would change error codes SVC100\.\. to PGRST100\.\., media types application/vnd\.svc\.\* to application/vnd\.pgrst\.\*, `+
		`the channel svc to pgrst, in-database settings svc\.\* to pgrst\.\*, custom errors RAISE SQLSTATE 'SVC\.\.' to 'PGRST', `+
		`and the environment variables read \(SVC_\* only to PGRST_\* and SVC_\*\)" channel=pgrst payload="reload schema"`)
	logs.waitFor(t, `(?s)msg="schema snapshot loaded in \d+ ms".*msg="schema snapshot loaded in \d+ ms"`)
}
