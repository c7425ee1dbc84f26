package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// This file is `mcplogd service install|uninstall|status`: a per-user
// service that runs `mcplogd serve` at login and keeps it running, so the
// recorder is always on: a systemd user unit (Linux), a launchd agent
// (macOS), a scheduled task at logon (Windows).

// Names the service goes by.
const (
	serviceUnit  = "mcplogd.service"            // systemd
	serviceLabel = "com.github.mcplogd.mcplogd" // launchd
	serviceTask  = "mcplogd"                    // Windows' task scheduler
)

// userService is the service of one platform: the file that defines it
// (none for a scheduled task) and the commands that start, stop and
// query it.
type userService struct {
	kind    string // "systemd user unit", "launchd agent", "scheduled task"
	path    string // the unit or plist written; "": none
	content string
	start   [][]string // run after writing, in order
	stop    [][]string // run before removing
	query   []string   // prints the service's state
}

// newService returns the service of goos that runs exe's serve on the
// data directory data (both absolute), with getenv's home.
func newService(goos string, getenv func(string) string, exe, data string) (*userService, error) {
	home := getenv("HOME")
	switch goos {
	case "windows":
		tr := winQuote(exe) + " serve --data " + winQuote(data)
		if len(tr) > 261 { // schtasks /TR's limit
			return nil, fmt.Errorf("the task's command (%s) is over the 261 characters schtasks takes: install mcplogd, or put the data directory, on a shorter path", tr)
		}
		return &userService{kind: "scheduled task",
			start: [][]string{{"schtasks", "/Create", "/F", "/TN", serviceTask, "/SC", "ONLOGON", "/TR", tr}, {"schtasks", "/Run", "/TN", serviceTask}},
			stop:  [][]string{{"schtasks", "/End", "/TN", serviceTask}, {"schtasks", "/Delete", "/F", "/TN", serviceTask}},
			query: []string{"schtasks", "/Query", "/TN", serviceTask}}, nil
	case "darwin":
		if home == "" {
			return nil, errors.New("$HOME is not set: no ~/Library/LaunchAgents to write the agent to")
		}
		path := filepath.Join(home, "Library", "LaunchAgents", serviceLabel+".plist")
		domain := "gui/" + strconv.Itoa(os.Getuid())
		return &userService{kind: "launchd agent", path: path, content: launchdPlist(exe, data),
			start: [][]string{{"launchctl", "bootstrap", domain, path}},
			stop:  [][]string{{"launchctl", "bootout", domain, path}},
			query: []string{"launchctl", "print", domain + "/" + serviceLabel}}, nil
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		if home == "" {
			return nil, errors.New("neither $XDG_CONFIG_HOME nor $HOME is set: no systemd/user directory to write the unit to")
		}
		dir = filepath.Join(home, ".config")
	}
	path := filepath.Join(dir, "systemd", "user", serviceUnit)
	return &userService{kind: "systemd user unit", path: path, content: systemdUnit(exe, data),
		start: [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", serviceUnit}},
		stop:  [][]string{{"systemctl", "--user", "disable", "--now", serviceUnit}, {"systemctl", "--user", "daemon-reload"}},
		query: []string{"systemctl", "--user", "status", "--no-pager", serviceUnit}}, nil
}

// systemdUnit is the unit that runs exe serve --data data.
func systemdUnit(exe, data string) string {
	return "[Unit]\n" +
		"Description=mcplogd, the flight recorder of game engines' logs (" + data + ")\n" +
		"Documentation=https://github.com/mcplogd/mcplogd\n\n" +
		"[Service]\n" +
		"ExecStart=" + systemdQuote(exe) + " serve --data " + systemdQuote(data) + "\n" +
		"Restart=on-failure\n" +
		"RestartSec=5\n\n" +
		"[Install]\n" +
		"WantedBy=default.target\n"
}

// systemdQuote quotes an argument of ExecStart: in double quotes, with
// backslashes and quotes escaped, and % and $ doubled so that systemd
// expands neither specifiers nor variables.
func systemdQuote(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$").Replace(s)
	return `"` + s + `"`
}

// launchdPlist is the agent that runs exe serve --data data at login,
// again when it fails, logging to the data directory's serve.log.
func launchdPlist(exe, data string) string {
	esc := func(s string) string {
		var b bytes.Buffer
		_ = xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	str := func(s string) string { return "<string>" + esc(s) + "</string>" }
	log := str(filepath.Join(data, recorderLog))
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	` + str(serviceLabel) + `
	<key>ProgramArguments</key>
	<array>
		` + str(exe) + `
		<string>serve</string>
		<string>--data</string>
		` + str(data) + `
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>StandardOutPath</key>
	` + log + `
	<key>StandardErrorPath</key>
	` + log + `
</dict>
</plist>
`
}

// winQuote quotes a path for a command line of Windows.
func winQuote(s string) string { return `"` + s + `"` }

func (m *Main) service(ctx context.Context, args []string) error {
	fs := m.flags("service", "install|uninstall|status [--data DIR]",
		"Set up a per-user service that runs mcplogd serve on the data directory at login and restarts it when it fails, for an always-on recorder: "+
			"a systemd user unit (~/.config/systemd/user/"+serviceUnit+") on Linux, a launchd agent (~/Library/LaunchAgents/"+serviceLabel+".plist) on macOS, "+
			"a scheduled task at logon ("+serviceTask+") on Windows. uninstall stops and removes it; status shows it and whether its server answers.")
	data := m.dataFlag(fs)
	if err := m.parse(fs, args, 1); err != nil {
		return err
	}
	action := fs.Arg(0)
	if action != "install" && action != "uninstall" && action != "status" {
		return fmt.Errorf("service %q: want install, uninstall or status", action)
	}
	exe, err := serviceBinary()
	if err != nil {
		return err
	}
	dir, err := datadir.Open(*data) // its token too: the server's link stays the same
	if err != nil {
		return err
	}
	if _, err := dir.Token(); err != nil {
		return err
	}
	svc, err := newService(runtime.GOOS, m.Getenv, exe, dir.Path)
	if err != nil {
		return err
	}
	switch action {
	case "install":
		if err := m.installService(svc); err != nil {
			return err
		}
		if serverOf(ctx, dir) != nil {
			s, _ := dir.Server()
			fmt.Fprintf(m.Stdout, "a server of %s already runs (pid %d): the service's own takes over once it stops (kill %d)\n", dir.Path, s.PID, s.PID)
		}
		return nil
	case "uninstall":
		return m.uninstallService(svc)
	}
	return m.serviceStatus(ctx, svc, dir)
}

// serviceBinary is the mcplogd the service runs: this binary, by its
// real path; a temporary build of go run is refused, as it goes away.
func serviceBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the mcplogd binary for the service: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", fmt.Errorf("%s is a temporary build of go run, which goes away: install mcplogd (make install, or go install ./cmd/mcplogd) and run its service install", exe)
	}
	return exe, nil
}

// installService writes the service's file and runs its start commands
// when the tool is here; without it, it says what was written and what
// to run.
func (m *Main) installService(svc *userService) error {
	if svc.path != "" {
		if err := os.MkdirAll(filepath.Dir(svc.path), 0o755); err != nil {
			return fmt.Errorf("service install: %w", err)
		}
		if err := os.WriteFile(svc.path, []byte(svc.content), 0o644); err != nil {
			return fmt.Errorf("service install: %w", err)
		}
		fmt.Fprintf(m.Stdout, "wrote the %s %s\n", svc.kind, svc.path)
	}
	if err := m.runService(svc.start, svc); err != nil {
		if svc.path == "" {
			return err
		}
		fmt.Fprintf(m.Stdout, "%v\nthe %s is written but not loaded; load it with: %s\n", err, svc.kind, shellLine(svc.start))
		return nil
	}
	fmt.Fprintf(m.Stdout, "the %s is installed and started: mcplogd status shows its server\n", svc.kind)
	return nil
}

// uninstallService runs the stop commands when the tool is here (their
// failures are reported, not fatal: the service may not be loaded) and
// removes the file.
func (m *Main) uninstallService(svc *userService) error {
	if svc.path != "" {
		if _, err := os.Stat(svc.path); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(m.Stdout, "no %s at %s: nothing to uninstall\n", svc.kind, svc.path)
			return nil
		}
	}
	if err := m.runService(svc.stop[:1], svc); err != nil {
		if svc.path == "" {
			return err
		}
		fmt.Fprintln(m.Stdout, err)
	}
	if svc.path != "" {
		if err := os.Remove(svc.path); err != nil {
			return fmt.Errorf("service uninstall: %w", err)
		}
		fmt.Fprintf(m.Stdout, "removed the %s %s\n", svc.kind, svc.path)
		_ = m.runService(svc.stop[1:], svc)
		return nil
	}
	return m.runService(svc.stop[1:], svc)
}

// serviceStatus prints whether the service is installed, what it runs,
// what its tool says of it, and whether the data directory's server
// answers.
func (m *Main) serviceStatus(ctx context.Context, svc *userService, dir *datadir.Dir) error {
	if svc.path != "" {
		b, err := os.ReadFile(svc.path)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(m.Stdout, "no %s installed (%s; mcplogd service install writes it)\n", svc.kind, svc.path)
		} else if err != nil {
			return err
		} else {
			fmt.Fprintf(m.Stdout, "%s installed: %s\n", svc.kind, svc.path)
			if string(b) != svc.content {
				fmt.Fprintln(m.Stdout, "  it differs from what service install writes now (another binary or data directory): install again to update it")
			}
		}
	}
	if _, err := exec.LookPath(svc.query[0]); err == nil {
		out, _ := exec.CommandContext(ctx, svc.query[0], svc.query[1:]...).CombinedOutput()
		fmt.Fprintf(m.Stdout, "%s says:\n%s\n", strings.Join(svc.query, " "), indent(string(out)))
	} else {
		fmt.Fprintf(m.Stdout, "no %s here to ask about the service\n", svc.query[0])
	}
	token, err := dir.Token()
	if err != nil {
		return err
	}
	if r := runningServer(ctx, dir, token); r != nil {
		s, _ := dir.Server()
		fmt.Fprintf(m.Stdout, "the server of %s answers at http://%s (pid %d)\n", dir.Path, s.Addr, s.PID)
	} else {
		fmt.Fprintf(m.Stdout, "no server of %s answers\n", dir.Path)
	}
	return nil
}

// runService runs cmds in order, printing what each printed; the first
// failure, or a tool missing here, is the error.
func (m *Main) runService(cmds [][]string, svc *userService) error {
	for _, c := range cmds {
		if _, err := exec.LookPath(c[0]); err != nil {
			return fmt.Errorf("no %s here to load the %s", c[0], svc.kind)
		}
		out, err := exec.Command(c[0], c[1:]...).CombinedOutput()
		if len(bytes.TrimSpace(out)) > 0 {
			fmt.Fprint(m.Stdout, indent(string(out))+"\n")
		}
		if err != nil {
			return fmt.Errorf("%s: %v", strings.Join(c, " "), err)
		}
	}
	return nil
}

// shellLine is cmds as a line to type.
func shellLine(cmds [][]string) string {
	var lines []string
	for _, c := range cmds {
		lines = append(lines, strings.Join(c, " "))
	}
	return strings.Join(lines, " && ")
}

// indent indents each line of s by two spaces.
func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
