package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
)

// A reader of bbolt's file format that trusts nothing: every page is read
// with ReadAt (never mapped, so a short file gives an error, not a SIGBUS)
// and every offset is checked against what was read. The data file is
// checked with it before bbolt maps the file (checkFile), and salvage
// walks the records with it. The layout (bbolt 1.x, internal/common):
//
//	page header: id u64, flags u16, count u16, overflow u32 (16 bytes)
//	meta (after the header): magic u32, version u32, pageSize u32, flags u32,
//	  root bucket {root pgid u64, sequence u64}, freelist pgid u64,
//	  pgid (high water mark) u64, txid u64, checksum u64 (FNV-64a of the 56
//	  bytes before it)
//	branch element: pos u32, ksize u32, pgid u64; leaf element: flags u32,
//	  pos u32, ksize u32, vsize u32; pos counts from the element itself
//	a bucket's value: {root pgid u64, sequence u64}, then, when root is 0,
//	  the bucket's only page inline

const (
	pageHeaderSize  = 16
	elementSize     = 16
	metaSize        = 64
	metaSumBytes    = 56
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	flagBranch      = 0x01
	flagLeaf        = 0x02
	flagMeta        = 0x04
	flagFreelist    = 0x10
	flagBucketLeaf  = 0x01
	noFreelist      = ^uint64(0)
	minPages        = 4   // two meta pages, the freelist, the root bucket
	maxTreeDepth    = 64  // deeper is a cycle
	maxCheckedPages = 1e7 // the page check reads at most this many headers
)

// ErrDamaged is returned (wrapped, naming the file and what is wrong) by
// Open for a data file that would crash bbolt, and by reads that met a
// damaged page. `mcplogd salvage` copies what is readable into a new file.
var ErrDamaged = errors.New("data file is damaged")

// boltMeta is one of the two meta pages.
type boltMeta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	pgid     uint64
	txid     uint64
}

// parseMeta reads a meta page's body (after the page header).
func parseMeta(b []byte) (boltMeta, error) {
	if len(b) < metaSize {
		return boltMeta{}, errors.New("short meta page")
	}
	le := binary.LittleEndian
	if le.Uint32(b[0:]) != boltMagic {
		return boltMeta{}, errors.New("not a bbolt meta page (magic)")
	}
	if v := le.Uint32(b[4:]); v != boltVersion {
		return boltMeta{}, fmt.Errorf("bbolt format version %d, want %d", v, boltVersion)
	}
	h := fnv.New64a()
	h.Write(b[:metaSumBytes])
	if le.Uint64(b[metaSumBytes:]) != h.Sum64() {
		return boltMeta{}, errors.New("meta page checksum mismatch")
	}
	m := boltMeta{pageSize: le.Uint32(b[8:]), root: le.Uint64(b[16:]), freelist: le.Uint64(b[32:]), pgid: le.Uint64(b[40:]), txid: le.Uint64(b[48:])}
	if m.pageSize < 512 || m.pageSize > 1<<20 || m.pageSize&(m.pageSize-1) != 0 {
		return boltMeta{}, fmt.Errorf("page size %d", m.pageSize)
	}
	return m, nil
}

// boltFile is a data file opened for defensive reading.
type boltFile struct {
	f      *os.File
	path   string
	size   int64
	meta   boltMeta // the valid meta with the highest txid, as bbolt picks
	usable bool     // a valid meta page was found
	bad    []string // what was wrong with the other meta page, if anything
}

// openBoltFile opens path, finds its meta page the way bbolt does, and
// checks that the file holds every page the meta counts. When the file
// opened but fails a check, it returns the file too, for salvage: usable
// says whether a meta page was found, and the high water mark is cut to
// the pages the file holds.
func openBoltFile(path string) (*boltFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	bf := &boltFile{f: f, path: path}
	if err := bf.readMeta(); err != nil {
		return bf, err
	}
	return bf, nil
}

func (bf *boltFile) Close() error { return bf.f.Close() }

func (bf *boltFile) readMeta() error {
	fi, err := bf.f.Stat()
	if err != nil {
		return err
	}
	bf.size = fi.Size()
	var metas []boltMeta
	for i, at := range []int64{0, -1} {
		if at < 0 {
			// The second meta page is one page in: the page size of the
			// first if it is valid, else the usual sizes in turn.
			at = 4096
			if len(metas) > 0 {
				at = int64(metas[0].pageSize)
			}
		}
		b := make([]byte, pageHeaderSize+metaSize)
		if _, err := bf.f.ReadAt(b, at); err != nil {
			bf.bad = append(bf.bad, fmt.Sprintf("meta page %d: %v", i, err))
			continue
		}
		m, err := parseMeta(b[pageHeaderSize:])
		if err != nil {
			bf.bad = append(bf.bad, fmt.Sprintf("meta page %d: %v", i, err))
			continue
		}
		metas = append(metas, m)
	}
	if len(metas) == 0 {
		bf.meta = boltMeta{pageSize: 4096, pgid: uint64(bf.size / 4096)}
		return fmt.Errorf("no valid meta page (%s)", joinBad(bf.bad))
	}
	bf.meta, bf.usable = metas[0], true
	if len(metas) == 2 && metas[1].txid > metas[0].txid {
		bf.meta = metas[1]
	}
	err = bf.checkMeta()
	bf.meta.pgid = min(bf.meta.pgid, uint64(bf.size)/uint64(bf.meta.pageSize))
	return err
}

// checkMeta checks the chosen meta page against the file's size.
func (bf *boltFile) checkMeta() error {
	m, ps := bf.meta, int64(bf.meta.pageSize)
	switch {
	case bf.size < minPages*ps:
		return fmt.Errorf("%d bytes, less than %d pages of %d", bf.size, minPages, ps)
	case bf.size%ps != 0:
		return fmt.Errorf("%d bytes, not a whole number of %d-byte pages (truncated?)", bf.size, ps)
	case m.pgid < minPages || int64(m.pgid) > bf.size/ps:
		return fmt.Errorf("the meta page counts %d pages, the file holds %d (truncated?)", m.pgid, bf.size/ps)
	case m.root < 2 || m.root >= m.pgid:
		return fmt.Errorf("root page %d outside 2..%d", m.root, m.pgid-1)
	case m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pgid):
		return fmt.Errorf("freelist page %d outside 2..%d", m.freelist, m.pgid-1)
	}
	return nil
}

func joinBad(bad []string) string {
	s := ""
	for i, b := range bad {
		if i > 0 {
			s += "; "
		}
		s += b
	}
	return s
}

// page reads page id with its overflow pages, its header checked.
func (bf *boltFile) page(id uint64) ([]byte, error) {
	hdr, err := bf.pageHeader(id)
	if err != nil {
		return nil, err
	}
	b := make([]byte, (1+int64(binary.LittleEndian.Uint32(hdr[12:])))*int64(bf.meta.pageSize))
	if _, err := bf.f.ReadAt(b, int64(id)*int64(bf.meta.pageSize)); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	return b, nil
}

// freePages reads the freelist; nil, nil when the file keeps none.
func (bf *boltFile) freePages() (map[uint64]bool, error) {
	if bf.meta.freelist == noFreelist {
		return nil, nil
	}
	b, err := bf.page(bf.meta.freelist)
	if err != nil {
		return nil, fmt.Errorf("freelist: %w", err)
	}
	le := binary.LittleEndian
	if le.Uint16(b[8:]) != flagFreelist {
		return nil, fmt.Errorf("freelist: page %d is not a freelist", bf.meta.freelist)
	}
	n, at := uint64(le.Uint16(b[10:])), uint64(pageHeaderSize)
	if n == 0xFFFF { // the count does not fit in the header: the first element holds it
		n, at = le.Uint64(b[at:]), at+8
	}
	if n > uint64(len(b))/8 || at+8*n > uint64(len(b)) {
		return nil, fmt.Errorf("freelist: %d entries do not fit in its pages", n)
	}
	free := make(map[uint64]bool, n)
	for i := uint64(0); i < n; i++ {
		free[le.Uint64(b[at+8*i:])] = true
	}
	return free, nil
}

// checkPages reads the header of every page below the high water mark that
// is not free (at most maxCheckedPages), stepping over overflow pages, and
// returns the first that is damaged: garbled or zeroed pages have another
// id in their header. Pages that bbolt wrote keep their id, also once freed.
func (bf *boltFile) checkPages() error {
	free, err := bf.freePages()
	if err != nil || free == nil {
		return err
	}
	for id, n := uint64(0), 0; id < bf.meta.pgid && n < maxCheckedPages; n++ {
		if free[id] {
			id++
			continue
		}
		b, err := bf.pageHeader(id)
		if err != nil {
			return err
		}
		id += 1 + uint64(binary.LittleEndian.Uint32(b[12:]))
	}
	return nil
}

// pageHeader reads and checks page id's header: its id, a known kind, and
// overflow pages within the high water mark.
func (bf *boltFile) pageHeader(id uint64) ([]byte, error) {
	if id >= bf.meta.pgid {
		return nil, fmt.Errorf("page %d: above the high water mark %d", id, bf.meta.pgid)
	}
	hdr := make([]byte, pageHeaderSize)
	if _, err := bf.f.ReadAt(hdr, int64(id)*int64(bf.meta.pageSize)); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	le := binary.LittleEndian
	if got := le.Uint64(hdr); got != id {
		return nil, fmt.Errorf("page %d: header says page %d", id, got)
	}
	switch le.Uint16(hdr[8:]) {
	case flagBranch, flagLeaf, flagMeta, flagFreelist:
	default:
		return nil, fmt.Errorf("page %d: unknown page kind %#x", id, le.Uint16(hdr[8:]))
	}
	if over := uint64(le.Uint32(hdr[12:])); id+over >= bf.meta.pgid {
		return nil, fmt.Errorf("page %d: %d overflow pages pass the high water mark %d", id, over, bf.meta.pgid)
	}
	return hdr, nil
}

// checkFile checks the data file at path before bbolt maps it: its size,
// its meta pages and every page header (see checkPages). A missing or
// empty file passes (bbolt creates one). The error wraps ErrDamaged and
// names the file.
func checkFile(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) || err == nil && fi.Size() == 0 {
		return nil
	} else if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	bf, err := openBoltFile(path)
	if err == nil {
		err = bf.checkPages()
	}
	if bf != nil {
		bf.Close()
	}
	if err != nil {
		return damaged(path, err)
	}
	return nil
}

// damaged wraps err in ErrDamaged with the file and what to do.
func damaged(path string, err error) error {
	return fmt.Errorf("%w: %s: %w; copy what is readable into a new data directory with `mcplogd salvage --data %s --out NEWDIR`", ErrDamaged, path, err, filepath.Dir(path))
}
