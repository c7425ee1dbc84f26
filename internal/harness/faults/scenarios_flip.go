package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcplogd/mcplogd/internal/harness/logtest"
)

func init() { Scenarios = append(Scenarios, Scenario{"flipped bit", ScenarioFlippedBit}) }

// flipsPerRound is how many bits ScenarioFlippedBit flips a round, each in
// a fresh copy of the same data directory: 24 in the default 3 rounds.
const flipsPerRound = 8

// ScenarioFlippedBit: one random bit of log.db flipped inside a sealed
// block's value (damage bbolt's page checks cannot see). The server must
// start; a tail from the start, get_logs' pages (GET /api/v1/records) and
// the search for "needle" must each reach the newest record, skip what
// the damaged block lost and say so ("damaged": "#a..#b unreadable: log.db is
// damaged there; run mcplogd salvage …"); /api/v1/info must name the
// damage; salvage must copy every readable record and count the ones it
// lost. Lost is what the flipped bits cost: the runs of 64 records whose
// checksums failed, or the whole block.
func ScenarioFlippedBit(e *Env) (Result, error) {
	const n = 20_000
	r := Result{Scenario: "flipped bit", LossExpected: true}
	base, err := e.prepare("flip-base", n)
	if err != nil {
		return r, err
	}
	blocks, err := e.sealedBlocks(base)
	if err != nil {
		return r, err
	}
	var lost []int
	for round := range e.Rounds {
		for i := range flipsPerRound {
			data := filepath.Join(e.Dir, fmt.Sprintf("flip-%d-%d", round, i))
			if out, err := exec.Command("cp", "-a", base, data).CombinedOutput(); err != nil {
				return r, fmt.Errorf("cp: %v %s", err, out)
			}
			b := blocks[e.Rand.IntN(len(blocks))]
			off, bit := b.At+e.Rand.Int64N(b.Size), uint(e.Rand.IntN(8))
			if err := logtest.FlipBit(filepath.Join(data, "log.db"), off, bit); err != nil {
				return r, err
			}
			how := fmt.Sprintf("bit %d of byte %d of block #%d..#%d", bit, off-b.At, b.First, b.Last)
			readable, err := e.readFlipped(data, n)
			if err != nil {
				return r, fmt.Errorf("%s: %w", how, err)
			}
			lost = append(lost, n-readable)
			r.Acked, r.Lost = r.Acked+n, r.Lost+n-readable
			e.logf("flipped bit round %d.%d (%s): %d records lost, every reader went on", round, i, how, n-readable)
		}
		r.Rounds = round + 1
	}
	sealed := 0
	for _, b := range blocks {
		sealed += b.Records
	}
	r.Note = fmt.Sprintf("%d flips, records lost per flipped bit %v (%d blocks of ~%d records); readers went on, salvage counted them",
		len(lost), lost, len(blocks), sealed/len(blocks))
	return r, nil
}

// sealedBlocks returns the blocks of data's log.db, running its server a
// little longer when the sealer had not sealed three yet (it seals once
// the appends and the index's catch-up pause).
func (e *Env) sealedBlocks(data string) ([]logtest.Block, error) {
	for try := 0; ; try++ {
		blocks, err := logtest.Blocks(filepath.Join(data, "log.db"))
		if err != nil || len(blocks) >= 3 {
			return blocks, err
		}
		if try == 5 {
			return nil, fmt.Errorf("%d blocks sealed in %s after %d starts", len(blocks), data, try)
		}
		s, err := e.Start(data)
		if err != nil {
			return nil, err
		}
		time.Sleep(2 * time.Second) // the sealer's quiet time, and its work
		if err := s.Stop(); err != nil {
			return nil, err
		}
	}
}

// readFlipped starts a server on data, whose log.db held n lines before a
// bit flipped, reads it every way and salvages it, and returns how many
// records were readable.
func (e *Env) readFlipped(data string, n int) (int, error) {
	s, err := e.Start(data)
	if err != nil {
		return 0, fmt.Errorf("the server did not start: %w", err)
	}
	readable, err := s.checkFlipped(n)
	if serr := s.Stop(); err == nil {
		err = serr
	}
	if err != nil {
		return 0, err
	}
	out, err := exec.Command(e.Bin, "salvage", "--data", data, "--out", data+"-salvaged").CombinedOutput()
	m := regexp.MustCompile(`copied (\d+) records`).FindSubmatch(out)
	if err != nil || m == nil {
		return 0, fmt.Errorf("salvage: %v\n%s", err, out)
	}
	copied, _ := strconv.Atoi(string(m[1]))
	switch {
	case copied != readable:
		return 0, fmt.Errorf("salvage copied %d records, the server read %d\n%s", copied, readable, out)
	case readable < n && !strings.Contains(string(out), fmt.Sprintf("%d of them lost to damage in ", n-readable)):
		return 0, fmt.Errorf("salvage did not count the %d records lost\n%s", n-readable, out)
	}
	return readable, nil
}

// damagedAnswer is the part of the tail, records and search answers this
// scenario reads.
type damagedAnswer struct {
	Lines      []struct{ ID uint64 }                  `json:"lines"`
	Records    []struct{ ID uint64 }                  `json:"records"`
	Hits       []struct{ Record struct{ ID uint64 } } `json:"hits"`
	LastID     uint64                                 `json:"lastId"`
	Revision   uint64                                 `json:"revision"`
	More       bool                                   `json:"more"`
	NextCursor string                                 `json:"nextCursor"`
	Damaged    []string                               `json:"damaged"`
}

// checkFlipped reads s's log oldest first, newest first and by search,
// and returns the records the tail read.
func (s *Server) checkFlipped(n int) (int, error) {
	var info struct {
		LastID  uint64   `json:"lastId"`
		Damaged []string `json:"damaged"`
	}
	if err := s.getJSON("/api/v1/info", nil, &info); err != nil {
		return 0, err
	}
	tail, tailDamage, err := s.pages("/api/v1/tail", url.Values{"sinceId": {"0"}, "limit": {"1000"}}, func(a *damagedAnswer, q url.Values) bool {
		q.Set("sinceId", fmt.Sprint(a.LastID))
		q.Set("revision", fmt.Sprint(a.Revision))
		return a.More
	})
	if err != nil {
		return 0, err
	}
	list, listDamage, err := s.pages("/api/v1/records", url.Values{"count": {"1000"}}, func(a *damagedAnswer, q url.Values) bool {
		if len(a.Records) > 0 {
			q.Set("before", fmt.Sprint(a.Records[len(a.Records)-1].ID))
		}
		return a.More
	})
	if err != nil {
		return 0, err
	}
	hits, searchDamage, err := s.pages("/api/v1/search", url.Values{"query": {"needle"}, "limit": {"500"}}, func(a *damagedAnswer, q url.Values) bool {
		q.Set("cursor", a.NextCursor)
		return a.NextCursor != ""
	})
	if err != nil {
		return 0, err
	}
	if err := s.getJSON("/api/v1/info", nil, &info); err != nil {
		return 0, err
	}
	lost, found, want := n-len(tail), len(hits), tail.needles()
	switch {
	case len(tail) == 0 || tail[len(tail)-1] != info.LastID:
		return 0, fmt.Errorf("the tail from the start did not reach the newest record %d", info.LastID)
	case len(list) != len(tail) || found != want:
		return 0, fmt.Errorf("the tail read %d records, the list %d; the search found %d needles, %d were read", len(tail), len(list), found, want)
	case lost > 0 && (!named(tailDamage) || !named(listDamage) || !named(info.Damaged)):
		return 0, fmt.Errorf("%d records lost, the answers did not all say so: tail %q, list %q, info %q", lost, tailDamage, listDamage, info.Damaged)
	case found < needles(n) && !named(searchDamage):
		return 0, fmt.Errorf("the search found %d needles of %d, not naming the damage", found, needles(n))
	}
	return len(tail), nil
}

// named reports whether the markers name the damage and salvage.
func named(marks []string) bool {
	return len(marks) > 0 && strings.Contains(marks[0], "unreadable: log.db is damaged there; run mcplogd salvage")
}

// idList is the IDs an answer's pages gave, in order.
type idList []uint64

// needles counts the IDs that prepare made needles (every 7th line from
// the first, ID 1).
func (ids idList) needles() int {
	n := 0
	for _, id := range ids {
		if (id-1)%7 == 0 {
			n++
		}
	}
	return n
}

// pages GETs path with q, and again while next (which updates q for the
// next page) says so, and returns every ID the pages gave and every
// damage marker they carried.
func (s *Server) pages(path string, q url.Values, next func(*damagedAnswer, url.Values) bool) (idList, []string, error) {
	var ids idList
	var marks []string
	for range 10_000 {
		var a damagedAnswer
		if err := s.getJSON(path, q, &a); err != nil {
			return nil, nil, err
		}
		for _, l := range a.Lines {
			ids = append(ids, l.ID)
		}
		for _, r := range a.Records {
			ids = append(ids, r.ID)
		}
		for _, h := range a.Hits {
			ids = append(ids, h.Record.ID)
		}
		marks = append(marks, a.Damaged...)
		if !next(&a, q) {
			return ids, marks, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: more than 10,000 pages", path)
}

// getJSON GETs path with q and decodes a 200 answer into out.
func (s *Server) getJSON(path string, q url.Values, out any) error {
	req, err := http.NewRequest(http.MethodGet, s.Base+path+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, bytes.TrimSpace(b))
	}
	return json.Unmarshal(b, out)
}
