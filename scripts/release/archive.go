package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// member is one file of an archive: its name there, the file it is read from, its mode.
type member struct {
	name, src string
	mode      int64
}

// archiveMembers lists what a target's archive holds: the binary (from bin), then the files of
// config.json's patterns, matched under root and sorted, each once.
func archiveMembers(c *Config, root, goos, bin string) ([]member, error) {
	members := []member{{c.binaryName(goos), bin, 0o755}}
	var extra []string
	for _, pattern := range c.Files {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, fmt.Errorf("files pattern %q: %w", pattern, err)
		}
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() && !slices.Contains(extra, m) {
				extra = append(extra, m)
			}
		}
	}
	slices.Sort(extra)
	for _, m := range extra {
		rel, _ := filepath.Rel(root, m)
		members = append(members, member{filepath.ToSlash(rel), m, 0o644})
	}
	return members, nil
}

// writeArchive writes members into path, a .tar.gz or a .zip by its name. Every entry gets
// mtime, owner 0 and its fixed mode, and gzip's header no name or time, so the same inputs give
// the same bytes (and checksum) on any machine.
func writeArchive(path string, members []member, mtime time.Time) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if strings.HasSuffix(path, ".zip") {
		err = writeZip(w, members, mtime)
	} else {
		err = writeTarGz(w, members, mtime)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return w.Flush()
}

func writeTarGz(w io.Writer, members []member, mtime time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		data, err := os.ReadFile(m.src)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: m.name, Mode: m.mode, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, members []member, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, m := range members {
		data, err := os.ReadFile(m.src)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: mtime.UTC()}
		hdr.SetMode(os.FileMode(m.mode))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// archiveEntries lists the names and modes in an archive, in order, and answers the contents
// of the entry named want (nil if none).
func archiveEntries(path, want string) (names []string, modes []os.FileMode, content []byte, err error) {
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, nil, nil, err
		}
		defer zr.Close()
		for _, f := range zr.File {
			names, modes = append(names, f.Name), append(modes, f.Mode().Perm())
			if f.Name == want {
				if content, err = readZipFile(f); err != nil {
					return nil, nil, nil, err
				}
			}
		}
		return names, modes, content, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, nil, err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return names, modes, content, nil
		}
		if err != nil {
			return nil, nil, nil, err
		}
		names, modes = append(names, hdr.Name), append(modes, os.FileMode(hdr.Mode).Perm())
		if hdr.Name == want {
			if content, err = io.ReadAll(tr); err != nil {
				return nil, nil, nil, err
			}
		}
	}
}

func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// fileSHA256 is the hex SHA-256 of a file's contents.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeChecksums writes sha256sum's format ("HASH  NAME", sorted by name) over the files of
// dir named, which `sha256sum -c` reads back.
func writeChecksums(path, dir string, names []string) (map[string]string, error) {
	sums := map[string]string{}
	var b strings.Builder
	for _, n := range slices.Sorted(slices.Values(names)) {
		sum, err := fileSHA256(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		sums[n] = sum
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return sums, os.WriteFile(path, []byte(b.String()), 0o644)
}

var checksumLine = regexp.MustCompile(`^([0-9a-f]{64})  ([^/\s]+)$`)

// readChecksums parses a checksums file, naming the line that is not "HASH  NAME".
func readChecksums(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		m := checksumLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: %q is not \"SHA256  NAME\"", filepath.Base(path), i+1, line)
		}
		if _, dup := sums[m[2]]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", filepath.Base(path), i+1, m[2])
		}
		sums[m[2]] = m[1]
	}
	return sums, nil
}
