package datadir_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/mcplogd/mcplogd/internal/datadir"
)

// TestUnwritableError_Error: each refusal names the data directory, what
// refused, why, and what to do.
func TestUnwritableError_Error(t *testing.T) {
	denied := func(path string) error { return &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES} }
	rofs := func(path string) error { return &fs.PathError{Op: "open", Path: path, Err: syscall.EROFS} }
	for _, tc := range []struct {
		name string
		err  *datadir.UnwritableError
		want string
	}{
		{"Dir", &datadir.UnwritableError{Dir: "/d", Path: "/d", Err: denied("/d/.token.123")},
			"cannot write the data directory /d: permission denied; give this user write access to /d, or pass --data another directory"},
		{"Log", &datadir.UnwritableError{Dir: "/d", Path: "/d/log.db", Err: denied("/d/log.db")},
			"cannot write the data directory /d: /d/log.db: permission denied; give this user read and write access to /d/log.db, or pass --data another directory"},
		{"Create", &datadir.UnwritableError{Dir: "/p/d", Path: "/p/d", Create: true, Err: denied("/p/d")},
			"cannot create the data directory /p/d: permission denied; give this user write access to /p, or pass --data another directory"},
		{"ReadOnlyFileSystem", &datadir.UnwritableError{Dir: "/d", Path: "/d/log.db", Err: rofs("/d/log.db")},
			"cannot write the data directory /d: /d/log.db: read-only file system; pass --data a directory on a writable file system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !errors.Is(tc.err, tc.err.Err.(*fs.PathError).Err) {
				t.Error("the cause does not unwrap")
			}
		})
	}
}

// TestOpen_ReadOnly: a directory this user may not write is refused by
// Open, by name, before anything is written; a read-only log.db by
// CheckLog. Root writes anyway, so it runs as another user only.
func TestOpen_ReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores permission bits; cmd/mcplogd's TestServe_ReadOnlyData runs these as uid 65534, TestUnwritableError_Error checks the words")
	}
	root := t.TempDir()
	ro := filepath.Join(root, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o700) })
	for _, tc := range []struct{ name, path, want string }{
		{"Dir", ro, "cannot write the data directory " + ro + ": permission denied; give this user write access to " + ro},
		{"Create", filepath.Join(ro, "d"), "cannot create the data directory " + filepath.Join(ro, "d") + ": permission denied; give this user write access to " + ro},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := datadir.Open(tc.path)
			var ue *datadir.UnwritableError
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Open: %v\nwant %s", err, tc.want)
			}
		})
	}
	t.Run("Log", func(t *testing.T) {
		dir, err := datadir.Open(filepath.Join(root, "d"))
		if err != nil {
			t.Fatal(err)
		}
		if err := dir.CheckLog(); err != nil {
			t.Fatalf("CheckLog without log.db: %v", err)
		}
		if err := os.WriteFile(dir.DBPath(), nil, 0o400); err != nil {
			t.Fatal(err)
		}
		want := "cannot write the data directory " + dir.Path + ": " + dir.DBPath() + ": permission denied"
		if err := dir.CheckLog(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("CheckLog: %v\nwant %s", err, want)
		}
	})
}

// TestOpen_FileInTheWay: a data directory that is a file, or under one,
// is refused naming the file, by Open and by Existing.
func TestOpen_FileInTheWay(t *testing.T) {
	file := filepath.Join(t.TempDir(), "log.db")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(file, "d")
	for _, tc := range []struct {
		name string
		open func(string) (*datadir.Dir, error)
		path string
		want string
	}{
		{"Open", datadir.Open, file, "the data directory " + file + " is a file, not a directory; pass --data a directory (a new one, or one holding log.db)"},
		{"OpenUnder", datadir.Open, under, "cannot create the data directory " + under + ": " + file + " is a file, not a directory; pass --data a path without a file in it"},
		{"Existing", datadir.Existing, file, "no data directory at " + file + ": " + file + " is a file, not a directory; pass --data a data directory"},
		{"ExistingUnder", datadir.Existing, under, "no data directory at " + under + ": " + file + " is a file, not a directory; pass --data a data directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.open(tc.path)
			if err == nil || err.Error() != tc.want || !errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, datadir.ErrNoDir) {
				t.Fatalf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestDir_Config: an empty config.json says it is empty and what to
// write; invalid JSON says where, by line and column.
func TestDir_Config(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"Empty", "", "config.json is empty, and an empty file is not valid JSON: write {} in it, or remove it (it may hold {"},
		{"WhiteSpace", " \n\t", "config.json holds only white space, and an empty file is not valid JSON: write {} in it, or remove it"},
		{"Syntax", "{\n  \"upstreams\": {\"x\": \"y\",}\n}", "config.json:2:26: invalid character '}' looking for beginning of object key string (it may hold {"},
		{"Type", "{\n \"follow\": []}", "config.json:2:12: json: cannot unmarshal array into Go struct field Config.follow of type map[string]string"},
		{"Truncated", "{\"follow\": {\"a\": \"b\"}\n", "config.json:1:22: the JSON ends before it is complete"},
		{"UnknownField", `{"nope": 1}`, `config.json: json: unknown field "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := datadir.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir.Path, "config.json")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = dir.Config()
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Dir(path)+"/"+tc.want) {
				t.Fatalf("got  %v\nwant %s/%s", err, filepath.Dir(path), tc.want)
			}
		})
	}
	t.Run("OK", func(t *testing.T) {
		dir, err := datadir.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if c, err := dir.Config(); err != nil || c.Follow != nil {
			t.Fatalf("no config.json: %+v, %v", c, err)
		}
		if err := os.WriteFile(filepath.Join(dir.Path, "config.json"), []byte(`{"follow": {"game": "/g.log"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if c, err := dir.Config(); err != nil || c.Follow["game"] != "/g.log" {
			t.Fatalf("config.json with a follow: %+v, %v", c, err)
		}
	})
}

// TestConfig_Documented: every key config.json takes is in
// docs/data-directory.md's description of the file.
func TestConfig_Documented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "data-directory.md"))
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.Lines(string(doc)) {
		if strings.HasPrefix(l, "| `config.json`") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("docs/data-directory.md has no row for config.json")
	}
	typ := reflect.TypeFor[datadir.Config]()
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if !strings.Contains(line, `"`+key+`"`) {
			t.Errorf("config.json's key %q is not in docs/data-directory.md:\n%s", key, line)
		}
	}
}
