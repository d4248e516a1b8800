package mcpserve

// Warming: a design entering the cache has its tools' scenarios (their
// conditions, answers and answer templates) and input schemas compiled in
// the background, so that a tool's first call costs what its second does.
// One goroutine at most does it, started when there is work and ended when
// there is none, so warming never takes more than one core from requests
// and leaves nothing running once the queue is empty; the request that
// loaded the design never waits for it. It is bounded three ways: the
// queue holds at most maxWarmQueue designs (past it a design is not
// warmed, and its tools compile on their first calls as they would
// without warming), the bytes warming added to designs still cached stay
// within the cache's warm budget, and a design that leaves the cache is
// not warmed further.

// maxWarmQueue bounds the designs waiting to be warmed.
const maxWarmQueue = 256

// DefaultWarmBytes is the warm budget when Options.WarmBytes is zero.
const DefaultWarmBytes = 8 << 20

// enqueueWarm queues entry e to be warmed, and starts the warming
// goroutine when none runs. c.mu is held.
func (c *cache) enqueueWarm(e *cacheEntry) {
	if c.warmBudget <= 0 || e.d == nil || len(e.d.tools) == 0 {
		return
	}
	if len(c.warmQueue) >= maxWarmQueue || c.warmed >= c.warmBudget {
		c.counts.WarmSkipped++
		return
	}
	c.warmQueue = append(c.warmQueue, e)
	if !c.warming {
		c.warming = true
		go c.warmLoop()
	}
}

// warmLoop warms the queued designs, one after another, and ends when the
// queue is empty.
func (c *cache) warmLoop() {
	for {
		c.mu.Lock()
		if len(c.warmQueue) == 0 {
			c.warming = false
			c.warmQueue = nil // give the backing array back
			c.mu.Unlock()
			return
		}
		e := c.warmQueue[0]
		c.warmQueue[0] = nil
		c.warmQueue = c.warmQueue[1:]
		c.mu.Unlock()
		c.warmEntry(e)
	}
}

// warmEntry compiles the tools of e's design while it is cached and the
// budget lasts. What a tool compiles counts for the design in the cache
// (tool.playing and tool.inputSchema charge it), as on a first call.
func (c *cache) warmEntry(e *cacheEntry) {
	for _, t := range e.d.tools {
		c.mu.Lock()
		ok := c.holds(e) && c.warmed < c.warmBudget
		before := e.charged
		c.mu.Unlock()
		if !ok {
			return
		}
		if c.warmHook != nil {
			c.warmHook(e.id)
		}
		// Errors surface on the tool's call, which reads them again.
		_, _ = t.playing(e.d)
		_, _ = t.inputSchema(e.d)
		c.mu.Lock()
		if c.holds(e) {
			n := e.charged - before
			e.warmed += n
			c.warmed += n
		}
		c.counts.WarmedTools++
		c.mu.Unlock()
	}
}

// holds reports whether e is the cache's entry for its id. c.mu is held.
func (c *cache) holds(e *cacheEntry) bool {
	el, ok := c.items[e.id]
	return ok && el.Value == e
}
