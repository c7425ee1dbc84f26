package datadir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/atomicfile"
)

// UserDir returns the per-user data directory, the default when neither
// --data, MCPLOGD_DATA nor a ./mcplogd-data says otherwise: on Linux and
// other Unix systems $XDG_STATE_HOME/mcplogd, else
// $HOME/.local/state/mcplogd; on macOS $HOME/Library/Application
// Support/mcplogd; on Windows %LOCALAPPDATA%\mcplogd. getenv reads the
// environment (os.Getenv). ErrNoUserDir (wrapped, naming the variable)
// when the variable it needs is not set.
func UserDir(getenv func(string) string) (string, error) {
	return userDir(runtime.GOOS, getenv)
}

// ErrNoUserDir is returned by UserDir when the environment names no home.
var ErrNoUserDir = errors.New("no per-user data directory")

func userDir(goos string, getenv func(string) string) (string, error) {
	need := func(name string) (string, error) {
		v := getenv(name)
		if v == "" || !isAbs(goos, v) {
			return "", fmt.Errorf("%w: $%s is not set to an absolute path; pass --data DIR or set MCPLOGD_DATA", ErrNoUserDir, name)
		}
		return v, nil
	}
	switch goos {
	case "windows":
		base, err := need("LOCALAPPDATA")
		if err != nil {
			return "", err
		}
		return strings.TrimRight(base, `\/`) + `\mcplogd`, nil
	case "darwin", "ios":
		home, err := need("HOME")
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support", "mcplogd"), nil
	}
	// The XDG base directory spec: a relative $XDG_STATE_HOME is ignored.
	if s := getenv("XDG_STATE_HOME"); s != "" && filepath.IsAbs(s) {
		return filepath.Join(s, "mcplogd"), nil
	}
	home, err := need("HOME")
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", "mcplogd"), nil
}

// isAbs is filepath.IsAbs of goos: a drive letter or a UNC path on
// Windows, a leading slash elsewhere.
func isAbs(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
}

// Registry is the per-user list of running servers: each serve adds its
// data directory when it starts listening and removes it when it stops,
// so that the CLI finds a server from any working directory. A server
// killed with -9 leaves its entry behind: the reader checks each entry
// (the data directory's server.json, and whether it answers) and calls
// Remove for the dead ones.
type Registry struct {
	Path string // the directory of entries, one file per data directory
}

// UserRegistry returns the registry of this user: servers/ in UserDir.
func UserRegistry(getenv func(string) string) (Registry, error) {
	dir, err := UserDir(getenv)
	if err != nil {
		return Registry{}, err
	}
	return Registry{Path: filepath.Join(dir, "servers")}, nil
}

// Entry is one running server as the registry holds it.
type Entry struct {
	Dir     string    `json:"dir"` // the data directory, absolute
	Addr    string    `json:"addr"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
}

// entryFile is the file of the data directory at dir: one per directory,
// so a restart replaces its entry.
func (r Registry) entryFile(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(r.Path, hex.EncodeToString(sum[:8])+".json")
}

// Add records e, replacing the entry of e.Dir; it makes the registry's
// directory (mode 0700) when missing.
func (r Registry) Add(e Entry) error {
	if err := os.MkdirAll(r.Path, 0o700); err != nil {
		return fmt.Errorf("server registry: %w", err)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(r.entryFile(e.Dir), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("server registry: %w", err)
	}
	return nil
}

// Remove forgets the server of the data directory dir, when pid is the
// one recorded (0: whatever is recorded), so that a server that stops
// late does not remove the entry of the one that replaced it.
func (r Registry) Remove(dir string, pid int) error {
	f := r.entryFile(dir)
	if pid != 0 {
		var e Entry
		if b, err := os.ReadFile(f); err != nil || json.Unmarshal(b, &e) != nil || e.PID != pid {
			return nil
		}
	}
	if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("server registry: %w", err)
	}
	return nil
}

// Entries returns the recorded servers, the newest started first; a
// missing registry has none, and an unreadable entry is skipped.
func (r Registry) Entries() ([]Entry, error) {
	des, err := os.ReadDir(r.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("server registry: %w", err)
	}
	var out []Entry
	for _, de := range des {
		if !strings.HasSuffix(de.Name(), ".json") || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		var e Entry
		b, err := os.ReadFile(filepath.Join(r.Path, de.Name()))
		if err != nil || json.Unmarshal(b, &e) != nil || e.Dir == "" {
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return b.Started.Compare(a.Started) })
	return out, nil
}
