package datadir

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/atomicfile"
)

// Default is the project's data directory: the one used, in the working
// directory, when it exists there and neither --data nor MCPLOGD_DATA
// names one (else UserDir).
const Default = "mcplogd-data"

// DefaultAddr is where serve listens when neither --addr nor a saved address says otherwise.
const DefaultAddr = "127.0.0.1:7170"

// DefaultMemoryLimit is the soft limit of the Go runtime's memory that
// serve and stdio set (--memory-limit): the heap of a 1,000,000-line
// catch-up peaks at twice its live ~80–150 MB without one.
const DefaultMemoryLimit = 200 << 20

// Dir is a data directory.
type Dir struct {
	Path string // absolute
}

// Open returns the data directory at path, creating it (mode 0700) if
// needed, once it knows this process may write there: a directory it may
// not create or write gives an *UnwritableError, a path that runs into a
// file an error that names the file.
func Open(path string) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		if file, ok := fileInTheWay(err); ok && file == abs {
			return nil, &explained{fmt.Sprintf("the data directory %s is a file, not a directory; pass --data a directory (a new one, or one holding log.db)", abs), err}
		} else if ok {
			return nil, &explained{fmt.Sprintf("cannot create the data directory %s: %s is a file, not a directory; pass --data a path without a file in it", abs, file), err}
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && refused(err) {
			return nil, &UnwritableError{Dir: abs, Path: pe.Path, Create: true, Err: err}
		}
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// A server writes its token, server.json and index here: finding out
	// now says so once, by name, not by a temporary file's name halfway
	// through starting. A full disk is let through: serve starts on one,
	// for reading.
	if f, err := os.CreateTemp(abs, ".write-check.*"); refused(err) {
		return nil, &UnwritableError{Dir: abs, Path: abs, Err: err}
	} else if err == nil {
		f.Close()
		os.Remove(f.Name())
	}
	return &Dir{Path: abs}, nil
}

// Existing returns the data directory at path; ErrNoDir (wrapped, naming
// the path) when it does not exist.
func Existing(path string) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, dbFile)); err != nil {
		if file, ok := fileInTheWay(err); ok {
			return nil, fmt.Errorf("%w at %s: %s is a file, not a directory; pass --data a data directory", ErrNoDir, abs, file)
		}
		return nil, fmt.Errorf("%w at %s (%s)", ErrNoDir, abs, HowToMake(abs))
	}
	return &Dir{Path: abs}, nil
}

// HowToMake says how to make the data directory at path: what a "no
// data directory" message ends with.
func HowToMake(path string) string {
	return "make one with: mcplogd serve --data " + quoteArg(path) + "; stdio, run and import make a missing one too, and link and token do with --create"
}

// quoteArg quotes a path for a shell when it holds a space or a quote.
func quoteArg(p string) string {
	if !strings.ContainsAny(p, " '\"$\t") {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// CheckLog returns an *UnwritableError when log.db exists and this process
// may not open it to read and write (the store would call such a file
// damaged, or fail naming it twice); nil when it may or when there is none
// yet.
func (d *Dir) CheckLog() error {
	f, err := os.OpenFile(d.DBPath(), os.O_RDWR, 0)
	if err == nil {
		return f.Close()
	}
	if refused(err) {
		return &UnwritableError{Dir: d.Path, Path: d.DBPath(), Err: err}
	}
	return nil // missing, or a fault store.Open reports in its own words
}

const (
	dbFile     = "log.db"
	tokenFile  = "token"
	serverFile = "server.json"
	// startingFile says a server is starting: it holds the log and has
	// not yet written server.json (Starting).
	startingFile = "starting"
)

// DBPath is the bbolt file's path.
func (d *Dir) DBPath() string { return filepath.Join(d.Path, dbFile) }

// Token returns the saved access token, creating one the first time.
func (d *Dir) Token() (string, error) {
	b, err := os.ReadFile(filepath.Join(d.Path, tokenFile))
	if errors.Is(err, os.ErrNotExist) {
		return d.firstToken()
	}
	if err != nil {
		return "", fmt.Errorf("read token: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if !ValidToken(tok) {
		return "", fmt.Errorf("token file %s is damaged: want 64 hex characters (run mcplogd token --new)", filepath.Join(d.Path, tokenFile))
	}
	return tok, nil
}

// NewToken makes and saves a new random 32-byte token, replacing the old one.
func (d *Dir) NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b[:])
	if err := d.writeFile(tokenFile, []byte(tok+"\n")); err != nil {
		return "", err
	}
	return tok, nil
}

// firstToken makes the directory's first token, unless another process
// made one meanwhile: then that one is returned, so that processes
// starting together (two stdio sessions and the server one of them
// starts) agree on it.
func (d *Dir) firstToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b[:])
	path := filepath.Join(d.Path, tokenFile)
	f, err := os.CreateTemp(d.Path, ".token.*")
	if err != nil {
		if refused(err) {
			return "", &UnwritableError{Dir: d.Path, Path: d.Path, Err: err}
		}
		return "", fmt.Errorf("save %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(tok + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("save %s: %w", path, err)
	}
	// A hard link is made only where no token is: the first one wins.
	switch err := os.Link(f.Name(), path); {
	case err == nil:
		return tok, nil
	case errors.Is(err, fs.ErrExist):
		return d.Token()
	}
	return d.NewToken() // a file system without hard links
}

// ValidToken reports whether s looks like a token NewToken makes.
func ValidToken(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32
}

// Server is what a server saves about itself.
type Server struct {
	Addr    string    `json:"addr"`          // the bound host:port
	PID     int       `json:"pid,omitempty"` // zero once it stopped cleanly
	Started time.Time `json:"started,omitzero"`
	Version string    `json:"version,omitempty"`
}

// BaseURL is the server's HTTP root, e.g. http://127.0.0.1:7170.
func (s Server) BaseURL() string { return "http://" + s.Addr }

// Server returns what the last server saved; the zero Server when none did.
func (d *Dir) Server() (Server, error) {
	var s Server
	b, err := os.ReadFile(filepath.Join(d.Path, serverFile))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return Server{}, fmt.Errorf("%s: %w", filepath.Join(d.Path, serverFile), err)
	}
	return s, nil
}

// SaveServer records s, replacing the file atomically.
func (d *Dir) SaveServer(s Server) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return d.writeFile(serverFile, append(b, '\n'))
}

// maxStart is how long a server's start is waited for (WaitStarted): a
// starting record older than that is one a server that died left.
const maxStart = 30 * time.Second

// Starting records that a server is starting in d: it opens the log, which
// it then holds, and has not yet saved where it listens. A command that
// finds no server answering waits for it (WaitStarted) rather than say an
// address it guessed. done removes the record, once server.json is saved
// or the start failed; it may be called more than once.
func (d *Dir) Starting() (done func()) {
	path := filepath.Join(d.Path, startingFile)
	if err := d.writeFile(startingFile, fmt.Appendf(nil, "%d\n", os.Getpid())); err != nil {
		return func() {} // a read-only directory: no waiting, as before
	}
	return func() { _ = os.Remove(path) }
}

// WaitStarted waits while a server is starting in d (Starting), for at
// most maxStart from its start; it reports whether one was, first calling
// waiting, when not nil.
func (d *Dir) WaitStarted(ctx context.Context, waiting func()) bool {
	path := filepath.Join(d.Path, startingFile)
	for n := 0; ; n++ {
		fi, err := os.Stat(path)
		if err != nil || time.Since(fi.ModTime()) > maxStart {
			return n > 0
		}
		if n == 0 && waiting != nil {
			waiting()
		}
		select {
		case <-ctx.Done():
			return true
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Link is the MCP link of a server at base with token.
func Link(base, token string) string { return base + "/mcp/" + token }

// writeFile replaces the file name in d atomically with data, readable by
// the owner only. A refused write is an *UnwritableError of d: the
// temporary file it failed to make is no name to tell a user.
func (d *Dir) writeFile(name string, data []byte) error {
	if err := atomicfile.WriteFile(filepath.Join(d.Path, name), data, 0o600); err != nil {
		if refused(err) {
			return &UnwritableError{Dir: d.Path, Path: d.Path, Err: err}
		}
		return fmt.Errorf("save %s: %w", filepath.Join(d.Path, name), err)
	}
	return nil
}

// configFile is the data directory's optional settings file.
const configFile = "config.json"

// Config is what DATA/config.json may set; flags add to it.
type Config struct {
	// Upstreams maps a name to a URL or "cmd:COMMAND ARGS", as --upstream
	// NAME=... takes them.
	Upstreams map[string]string `json:"upstreams,omitempty"`

	// Follow maps a name, or PARSER:NAME, to a log file's path, as
	// --follow [PARSER:]NAME=PATH takes them.
	Follow map[string]string `json:"follow,omitempty"`

	// Run maps a name, or PARSER:NAME, to a command serve starts and
	// records ("love game/"), as --run [PARSER:]NAME=COMMAND takes them.
	Run map[string]string `json:"run,omitempty"`

	// Games maps a game to the sources recorded as it (an upstream's
	// name, a followed log's), as --game GAME=SOURCE,... takes them.
	Games map[string][]string `json:"games,omitempty"`

	// Studio names the studio's VictoriaLogs that serve forwards to, as
	// --studio, --project and --machine do; nil: none.
	Studio *Studio `json:"studio,omitempty"`
	// Compat is the answers' compatibility mode, as --compat takes it
	// ("unity-bridge"); the flag wins.
	Compat string `json:"compat,omitempty"`
	// PendingMaxAge is how long an operation may stay pending before serve
	// settles it as timeout, as --pending-max-age takes it ("24h", "7d",
	// "0": never); "": the default. The flag wins.
	PendingMaxAge string `json:"pendingMaxAge,omitempty"`
}

// Studio is config.json's {"studio": {"url", "project", "machine"}}.
type Studio struct {
	URL     string `json:"url"`               // VictoriaLogs' root, e.g. http://127.0.0.1:9428
	Project string `json:"project,omitempty"` // "": DefaultProject
	Machine string `json:"machine,omitempty"` // "": the host name
}

// DefaultProject is the project a data directory forwards as when none is
// named: the name of the directory that holds it (the game project's
// folder when the data directory sits in it).
func (d *Dir) DefaultProject() string { return filepath.Base(filepath.Dir(d.Path)) }

// StudioStatePath is where the studio forwarder keeps its position.
func (d *Dir) StudioStatePath() string { return filepath.Join(d.Path, "studio-forward.json") }

// configHint says what config.json may hold, after an error in it.
const configHint = `it may hold {"upstreams": {"NAME": "URL or cmd:COMMAND ARGS"}, "follow": {"[PARSER:]NAME": "PATH"}, ` +
	`"run": {"[PARSER:]NAME": "COMMAND"}, "games": {"GAME": ["SOURCE"]}, "studio": {"url": "URL", "project": "NAME", "machine": "NAME"}, "compat": "unity-bridge", "pendingMaxAge": "24h"}`

// Config reads DATA/config.json; a missing file is the zero Config. An
// empty file is refused as such, and invalid JSON with its line and
// column.
func (d *Dir) Config() (Config, error) {
	var c Config
	path := filepath.Join(d.Path, configFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	} else if err != nil {
		return c, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		what := "is empty"
		if len(b) > 0 {
			what = "holds only white space"
		}
		return c, fmt.Errorf("%s %s, and an empty file is not valid JSON: write {} in it, or remove it (%s)", path, what, configHint)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, jsonError(path, b, err)
	}
	return c, nil
}

// jsonError is err, from decoding the file at path holding b, with the
// line and column it occurred at when the decoder says where.
func jsonError(path string, b []byte, err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
		at     = -1 // the offset of the byte at fault
		msg    = err.Error()
	)
	switch {
	case errors.As(err, &syntax):
		at = int(syntax.Offset) - 1 // the decoder had read the byte at fault
	case errors.As(err, &typ):
		at = int(typ.Offset) - 1
	case errors.Is(err, io.ErrUnexpectedEOF):
		at, msg = len(bytes.TrimRight(b, " \t\r\n")), "the JSON ends before it is complete"
	}
	if at < 0 {
		return &explained{fmt.Sprintf("%s: %s (%s)", path, msg, configHint), err}
	}
	at = min(at, len(b))
	line := 1 + bytes.Count(b[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(b[:at], '\n')
	return &explained{fmt.Sprintf("%s:%d:%d: %s (%s)", path, line, col, msg, configHint), err}
}
