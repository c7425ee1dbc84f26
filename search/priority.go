package search

import (
	"sync"
	"time"
)

// A search has priority over indexing: while one runs, the indexer and
// the term-set builder wait before their next step, so that a search
// during a lag has the cores to walk the records no index holds yet. A
// step already under way (a bleve batch, a chunk's term set) finishes
// first; a wait lasts searchFirstMax at most, so that searches asked
// back to back do not stop indexing.
const searchFirstMax = 250 * time.Millisecond

// priority counts the searches running.
type priority struct {
	mu     sync.Mutex
	n      int
	idle   chan struct{} // closed when n falls to 0
	waited int64         // steps that waited for a search (tests)
}

func (p *priority) enter() {
	p.mu.Lock()
	if p.n == 0 {
		p.idle = make(chan struct{})
	}
	p.n++
	p.mu.Unlock()
}

func (p *priority) exit() {
	p.mu.Lock()
	if p.n--; p.n == 0 {
		close(p.idle)
	}
	p.mu.Unlock()
}

// wait returns once no search runs, searchFirstMax has passed or stop
// is closed.
func (p *priority) wait(stop <-chan struct{}) {
	p.mu.Lock()
	if p.n == 0 {
		p.mu.Unlock()
		return
	}
	idle := p.idle
	p.waited++
	p.mu.Unlock()
	t := time.NewTimer(searchFirstMax)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-stop:
	}
}
