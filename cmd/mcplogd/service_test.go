package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestService_Systemd: on a HOME of its own and without systemctl on the
// PATH, service install writes the user unit with the binary's absolute
// path and the data directory, says it could not load it and what to
// run; status reports it; uninstall removes it.
func TestService_Systemd(t *testing.T) {
	home, _ := userEnv(t)
	bin := buildBinary(t)
	t.Setenv("PATH", t.TempDir()) // no systemctl: the real user manager is never asked
	cwd := t.TempDir()
	data := filepath.Join(home, ".local", "state", "mcplogd")
	unit := filepath.Join(home, ".config", "systemd", "user", "mcplogd.service")

	out, _ := cli(t, cwd, "service", "install")
	if !strings.Contains(out, "wrote the systemd user unit "+unit) || !strings.Contains(out, "no systemctl here") || !strings.Contains(out, "written but not loaded") ||
		!strings.Contains(out, "systemctl --user daemon-reload && systemctl --user enable --now mcplogd.service") {
		t.Errorf("service install said:\n%s", out)
	}
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ExecStart=\"" + bin + "\" serve --data \"" + data + "\"\n"; !strings.Contains(string(b), want) {
		t.Errorf("the unit has no %q:\n%s", want, b)
	}
	for _, want := range []string{"[Service]", "Restart=on-failure", "WantedBy=default.target"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the unit has no %q:\n%s", want, b)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "token")); err != nil { // the server makes log.db
		t.Errorf("install did not make the data directory and its token: %v", err)
	}
	out, _ = cli(t, cwd, "service", "status")
	if !strings.Contains(out, "systemd user unit installed: "+unit) || !strings.Contains(out, "no server of "+data+" answers") {
		t.Errorf("service status said:\n%s", out)
	}
	out, _ = cli(t, cwd, "service", "uninstall")
	if !strings.Contains(out, "removed the systemd user unit "+unit) {
		t.Errorf("service uninstall said:\n%s", out)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Errorf("the unit is still there: %v", err)
	}
	if out, _ = cli(t, cwd, "service", "status"); !strings.Contains(out, "no systemd user unit installed") {
		t.Errorf("service status after uninstall said:\n%s", out)
	}
	out, _ = cli(t, cwd, "service", "uninstall")
	if !strings.Contains(out, "nothing to uninstall") {
		t.Errorf("a second uninstall said:\n%s", out)
	}
}

// TestService_Definitions: the launchd agent is a well-formed plist that
// runs the binary on the data directory, paths with spaces, quotes, %
// and $ pass through systemd's quoting, and a scheduled task runs the
// quoted binary at logon (launchctl and schtasks cannot run here).
func TestService_Definitions(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"HOME": "/Users/me"}[k]
	}
	exe, data := "/opt/mc plogd/bin/mcplogd", "/Users/me/Library/Application Support/mcplogd & <co>"
	svc, err := newService("darwin", env, exe, data)
	if err != nil {
		t.Fatal(err)
	}
	if svc.path != "/Users/me/Library/LaunchAgents/com.github.mcplogd.mcplogd.plist" {
		t.Errorf("plist at %s", svc.path)
	}
	var plist struct {
		Dict struct {
			Keys    []string `xml:"key"`
			Strings []string `xml:"string"`
			Array   struct {
				Strings []string `xml:"string"`
			} `xml:"array"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal([]byte(svc.content), &plist); err != nil {
		t.Fatalf("the plist is not XML: %v\n%s", err, svc.content)
	}
	if got := strings.Join(plist.Dict.Array.Strings, "|"); got != exe+"|serve|--data|"+data {
		t.Errorf("ProgramArguments %q", got)
	}
	if !strings.Contains(strings.Join(plist.Dict.Keys, " "), "RunAtLoad KeepAlive StandardOutPath StandardErrorPath") ||
		plist.Dict.Strings[0] != "com.github.mcplogd.mcplogd" || plist.Dict.Strings[1] != filepath.Join(data, "serve.log") {
		t.Errorf("plist keys %v, strings %v", plist.Dict.Keys, plist.Dict.Strings)
	}
	if svc.start[0][0] != "launchctl" || svc.start[0][1] != "bootstrap" {
		t.Errorf("launchd start %v", svc.start)
	}

	unit := systemdUnit(`/home/a "b"/mcplogd`, "/home/a/50%$HOME")
	if want := `ExecStart="/home/a \"b\"/mcplogd" serve --data "/home/a/50%%$$HOME"`; !strings.Contains(unit, want) {
		t.Errorf("unit:\n%s\nwant %s", unit, want)
	}

	win, err := newService("windows", env, `C:\Program Files\mcplogd\mcplogd.exe`, `C:\Users\me\AppData\Local\mcplogd`)
	if err != nil {
		t.Fatal(err)
	}
	create := strings.Join(win.start[0], " ")
	if want := `schtasks /Create /F /TN mcplogd /SC ONLOGON /TR "C:\Program Files\mcplogd\mcplogd.exe" serve --data "C:\Users\me\AppData\Local\mcplogd"`; create != want || win.path != "" {
		t.Errorf("task: %s\nwant  %s", create, want)
	}
	if _, err := newService("windows", env, `C:\`+strings.Repeat("x", 300), `C:\d`); err == nil || !strings.Contains(err.Error(), "261") {
		t.Errorf("a command over schtasks' limit: %v", err)
	}
}
