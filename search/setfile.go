package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/atomicfile"
)

// The sets file (DATA/index/sets) holds the complete chunks' term sets:
// a header, then one frame per set, appended as the chunk completes and
// synced.
//
//	header: setsMagic, uint64 store generation, uint64 chunk size (little-endian)
//	frame:  uint32 length, uint32 CRC-32C of the set, the set (encodeSet)
//
// A torn or damaged frame ends what is read: the file is cut there and the
// chunks after it are built again from the store. Another generation or
// chunk size starts the file over; retention rewrites it whole
// (atomicfile) once most of it is dropped chunks.

const setsName = "sets"

var setsMagic = []byte("mcplogd chunk term sets 1\n")

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// maxFrameBytes bounds a frame's length as read, so that a damaged length
// is not an allocation.
const maxFrameBytes = 64 << 20

type setFile struct {
	path string
	f    *os.File
	size int64 // where the next frame goes: the end of the complete chunks' sets
	tail int64 // the bytes of the growing chunk's set written after them; 0: none

	tailThrough uint64    // the last ID of the growing chunk's set written
	tailAt      time.Time // when
}

func header(rev, chunk uint64) []byte {
	h := append([]byte(nil), setsMagic...)
	h = binary.LittleEndian.AppendUint64(h, rev)
	return binary.LittleEndian.AppendUint64(h, chunk)
}

// openSetFile opens (creating) the sets file in dir for store generation
// rev and chunks of chunk IDs, and returns its frames' sets in file order
// and why a damaged tail was cut ("" when nothing was).
func openSetFile(dir string, rev, chunk uint64) (*setFile, [][]byte, string, error) {
	path := filepath.Join(dir, setsName)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, "", fmt.Errorf("index: %w", err)
	}
	h := header(rev, chunk)
	if !bytes.HasPrefix(data, h) {
		if err := atomicfile.Replace(path, h, 0o600); err != nil {
			return nil, nil, "", fmt.Errorf("index: %w", err)
		}
		data = h
	}
	frames, good, why := readFrames(data[len(h):])
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return nil, nil, "", fmt.Errorf("index: %w", err)
	}
	s := &setFile{path: path, f: f, size: int64(len(h) + good)}
	if why != "" {
		if err := f.Truncate(s.size); err != nil {
			f.Close()
			return nil, nil, "", fmt.Errorf("index: %w", err)
		}
	}
	return s, frames, why, nil
}

// readFrames returns the sets of the frames in data up to the first bad
// one, how many bytes they take and, when a bad one ended them, why.
func readFrames(data []byte) (frames [][]byte, good int, why string) {
	for good < len(data) {
		rest := data[good:]
		if len(rest) < 8 {
			return frames, good, fmt.Sprintf("a torn frame at byte %d", good)
		}
		n := binary.LittleEndian.Uint32(rest)
		if n == 0 || n > maxFrameBytes || int(n) > len(rest)-8 {
			return frames, good, fmt.Sprintf("a frame of %d bytes at byte %d, past the file's end or no set's", n, good)
		}
		set := rest[8 : 8+n]
		if crc32.Checksum(set, crcTable) != binary.LittleEndian.Uint32(rest[4:]) {
			return frames, good, fmt.Sprintf("a frame at byte %d fails its checksum", good)
		}
		frames = append(frames, set)
		good += 8 + int(n)
	}
	return frames, good, ""
}

func frame(set []byte) []byte {
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, 8+len(set)), uint32(len(set)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(set, crcTable))
	return append(b, set...)
}

// append writes complete chunks' sets as the next frames, over the growing
// chunk's, and syncs them.
func (s *setFile) append(sets ...[]byte) error {
	var b []byte
	for _, set := range sets {
		b = append(b, frame(set)...)
	}
	if err := s.write(b); err != nil {
		return err
	}
	s.size, s.tail, s.tailThrough = s.size+int64(len(b)), 0, 0
	return nil
}

// writeTail writes the growing chunk's set after the complete ones, over
// the one written before, and syncs it.
func (s *setFile) writeTail(set []byte, through uint64) error {
	f := frame(set)
	if err := s.write(f); err != nil {
		return err
	}
	s.tail, s.tailThrough, s.tailAt = int64(len(f)), through, time.Now()
	return nil
}

// tailStale reports whether the growing chunk's set, now through through,
// is to be written: it changed since it was, and force, or tailEvery
// passed.
func (s *setFile) tailStale(through uint64, force bool) bool {
	if s.tail > 0 && s.tailThrough == through {
		return false
	}
	return force || time.Since(s.tailAt) >= tailEvery
}

// write writes frames f at the end of the complete chunks' sets, cutting
// what followed, and syncs them. On an error the file is cut back to those
// sets: a restart builds the others again.
func (s *setFile) write(f []byte) error {
	_, err := s.f.WriteAt(f, s.size)
	if err == nil && s.tail > int64(len(f)) {
		err = s.f.Truncate(s.size + int64(len(f)))
	}
	if err == nil {
		err = s.f.Sync()
	}
	if err != nil {
		_ = s.f.Truncate(s.size)
		s.tail = 0
		return fmt.Errorf("index: %w", err)
	}
	return nil
}

// rewrite replaces the file with one of sets, for generation rev. The
// file is closed first (Windows renames over no open file) and opened
// again, the new one or, should the replacement fail, the old.
func (s *setFile) rewrite(rev, chunk uint64, sets [][]byte) error {
	b := header(rev, chunk)
	for _, set := range sets {
		b = append(b, frame(set)...)
	}
	s.f.Close()
	werr := atomicfile.Replace(s.path, b, 0o600)
	f, err := os.OpenFile(s.path, os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("index: %w", errors.Join(werr, err))
	}
	s.f = f
	if werr != nil {
		return fmt.Errorf("index: %w", werr)
	}
	s.size, s.tail, s.tailThrough = int64(len(b)), 0, 0
	return nil
}

func (s *setFile) Close() error { return s.f.Close() }

// HoldsRecords reports whether the index in dir holds records: its sets
// file holds a set, or an older mcplogd's index is there (bleve's
// meta.json or segment directories). Then the log it was built from is
// not new, and a missing or empty log beside it is lost data, not a fresh
// start.
func HoldsRecords(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, setsName)); err == nil && fi.Size() > int64(len(header(0, 0))) {
		return true
	}
	ents, _ := os.ReadDir(dir)
	return slices.ContainsFunc(ents, isBleveFile)
}

// isBleveFile reports whether e is of the bleve index an older mcplogd
// kept: its meta.json or a segment's directory.
func isBleveFile(e os.DirEntry) bool {
	return e.Name() == "meta.json" || strings.HasPrefix(e.Name(), "seg-")
}
