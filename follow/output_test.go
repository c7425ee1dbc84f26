//go:build !windows

package follow

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOutput_End: a program another part of mcplogd runs is recorded as
// RunCommand records its own: a run marker, what it printed on the output
// given to Write parsed (a Python traceback is one record with its stack),
// and an exit marker with its status, returned with its ID and run.
func TestOutput_End(t *testing.T) {
	l := mustLog(t)
	cmd := exec.Command("sh", "-c", "exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o, err := StartOutput(l, CommandOptions{Name: testSource, Args: []string{"/usr/bin/game", "--level", "2"}}, cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	tb := "Traceback (most recent call last):\n  File \"game.py\", line 9, in <module>\n    grow(500)\n  File \"game.py\", line 5, in grow\n    raise OverflowError(\"pool overflow\")\nOverflowError: pool overflow\n"
	// in pieces, as a pipe delivers them
	for _, piece := range []string{tb[:30], tb[30:71], tb[71:]} {
		if _, err := o.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	_ = cmd.Wait()
	exit, err := o.End(cmd.ProcessState, "")
	if err != nil {
		t.Fatal(err)
	}
	recs := all(t, l)
	if len(recs) != 3 {
		t.Fatalf("%d records: %q", len(recs), texts(recs))
	}
	if r := recs[0]; r.Name != "run" || r.Text != "run started: /usr/bin/game --level 2" {
		t.Errorf("run marker %+v", r)
	}
	if r := recs[1]; r.Text != "OverflowError: pool overflow" || !strings.Contains(r.Stack, `line 5, in grow`) {
		t.Errorf("the traceback: %q %q", r.Text, r.Stack)
	}
	if r := recs[2]; r.ID != exit.ID || r.Run != 1 || exit.Run != 1 || exit.Text != "game exited with status 3" || !strings.Contains(string(exit.Data), `"exitCode":3`) {
		t.Errorf("exit marker %+v, End returned %+v", r, exit)
	}
}
