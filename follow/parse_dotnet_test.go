package follow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcplogd/mcplogd/crash"
)

// TestParse_DotnetLoggers: .NET's two common consoles. Serilog's ("[HH:mm:ss
// ERR] msg", the exception on the lines after) and Microsoft.Extensions.
// Logging's ("fail: Game.World[0]", the message indented under it, then the
// exception): each entry one record at its level, its message the text,
// the category the name, the exception its stack, whose game frame is the
// game's.
func TestParse_DotnetLoggers(t *testing.T) {
	const exc = "System.NullReferenceException: Object reference not set to an instance of an object.\n" +
		"   at Game.World.Spawn(String kind) in /src/World.cs:line 12\n   at Game.Program.Main() in /src/Program.cs:line 5\n"
	indent := func(s, by string) string {
		return strings.TrimSuffix(by+strings.ReplaceAll(s, "\n", "\n"+by), by)
	}
	for name, c := range map[string]struct{ in, want string }{
		"serilog": {"[10:00:00 INF] Application started\n[10:00:01 ERR] Could not spawn orc\n" + exc + "[10:00:02 WRN] slow frame\n",
			"info \"\" Application started|error \"\" Could not spawn orc|warn \"\" slow frame"},
		"mel": {"info: Microsoft.Hosting.Lifetime[0]\n      Application started.\nfail: Game.World[0]\n      Could not spawn orc\n" + indent(exc, "      ") +
			"warn: Game.Net[7]\n      slow frame\n",
			"info \"Microsoft.Hosting.Lifetime\" Application started.|error \"Game.World\" Could not spawn orc|warn \"Game.Net\" slow frame"},
	} {
		for _, parser := range []string{"generic", "auto"} {
			recs := recordsOf(feed(mustParser(t, parser), []byte(c.in)))
			var got []string
			for _, r := range recs {
				got = append(got, fmt.Sprintf("%s %q %s", r.Level, r.Name, r.Text))
			}
			if strings.Join(got, "|") != c.want {
				t.Errorf("%s %s: %q\nwant %q", name, parser, got, c.want)
				continue
			}
			if !strings.Contains(recs[1].Stack, "System.NullReferenceException") || !strings.HasSuffix(crash.GameFrame(recs[1].Stack), "World.cs:line 12") {
				t.Errorf("%s %s: the error's stack %q, game frame %q", name, parser, recs[1].Stack, crash.GameFrame(recs[1].Stack))
			}
		}
	}
}
