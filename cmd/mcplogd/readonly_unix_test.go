//go:build unix

package main

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// unprivileged returns a copy of the binary that uid 65534 may run, a
// directory for data directories, and the credential to run the binary
// with: nil when this process is not root (the permission bits apply to
// it); uid and gid 65534 when it is, as root writes through them. The test
// is skipped where root may not switch users.
func unprivileged(t *testing.T) (bin, root string, cred *syscall.Credential) {
	t.Helper()
	built := buildBinary(t)
	root, err := os.MkdirTemp("", "mcplogd-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Give back what the cases took away, so that a user who is not
		// root can remove the tree.
		_ = filepath.WalkDir(root, func(p string, _ fs.DirEntry, _ error) error { _ = os.Chmod(p, 0o700); return nil })
		_ = os.RemoveAll(root)
	})
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(root, "mcplogd")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		return bin, root, nil
	}
	cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	cmd := exec.Command(bin, "version")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("root here cannot run a program as uid 65534 (%v: %s), and root ignores permission bits", err, out)
	}
	return bin, root, cred
}

// TestServe_ReadOnlyData: a data directory, or a log.db, that this user
// may not write is refused naming it, saying why and what to do (and
// log.db once, not "open X: open X:"), by serve and by a command that
// opens the log itself; before anything is written.
func TestServe_ReadOnlyData(t *testing.T) {
	bin, root, cred := unprivileged(t)
	for _, tc := range []struct {
		name    string
		command string
		setup   func(t *testing.T, data string) // as root, when cred is set
		mode    map[string]os.FileMode          // then these, by path under data's parent
		data    string                          // --data under the case's directory; "": "d"
		want    func(data string) string
	}{
		{name: "NewDir", command: "serve",
			setup: func(t *testing.T, data string) { must(t, os.Mkdir(data, 0o700)) },
			mode:  map[string]os.FileMode{"d": 0o500},
			want:  writeDir},
		{name: "Dir", command: "serve", setup: newDataDir,
			mode: map[string]os.FileMode{"d": 0o500},
			want: writeDir},
		{name: "Log", command: "serve", setup: newDataDir,
			mode: map[string]os.FileMode{"d/log.db": 0o400},
			want: writeLog},
		{name: "UnreadableLog", command: "serve", setup: newDataDir,
			mode: map[string]os.FileMode{"d/log.db": 0},
			want: writeLog},
		{name: "LogTail", command: "tail", setup: newDataDir,
			mode: map[string]os.FileMode{"d/log.db": 0o400},
			want: writeLog},
		{name: "Parent", command: "serve", data: "p/d",
			setup: func(t *testing.T, data string) { must(t, os.Mkdir(filepath.Dir(data), 0o700)) },
			mode:  map[string]os.FileMode{"p": 0o500},
			want: func(data string) string {
				return "cannot create the data directory " + data + ": permission denied; give this user write access to " + filepath.Dir(data) + ", or pass --data another directory"
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := filepath.Join(root, tc.name)
			must(t, os.Mkdir(base, 0o755))
			data := filepath.Join(base, cmp.Or(tc.data, "d"))
			tc.setup(t, data)
			if cred != nil {
				must(t, filepath.WalkDir(base, func(p string, _ fs.DirEntry, err error) error {
					if err != nil {
						return err
					}
					return os.Lchown(p, int(cred.Uid), int(cred.Gid))
				}))
			}
			for p, m := range tc.mode {
				must(t, os.Chmod(filepath.Join(base, p), m))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			args := []string{tc.command, "--data", data}
			if tc.command == "serve" {
				args = append(args, "--addr", "127.0.0.1:0")
			}
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			_, err := cmd.Output()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("%s: %v, want exit status 1", tc.command, err)
			}
			if got, want := strings.TrimSpace(string(exit.Stderr)), "mcplogd: "+tc.want(data); got != want {
				t.Errorf("%s said\n  %s\nwant\n  %s", tc.command, got, want)
			}
		})
	}
}

func writeDir(data string) string {
	return "cannot write the data directory " + data + ": permission denied; give this user write access to " + data + ", or pass --data another directory"
}

func writeLog(data string) string {
	log := filepath.Join(data, "log.db")
	return "cannot write the data directory " + data + ": " + log + ": permission denied; give this user read and write access to " + log + ", or pass --data another directory"
}
