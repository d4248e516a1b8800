package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// wrkScript is the wrk script of -load wrk: it posts the request it reads
// from WRK_BODY, with the headers of WRK_HEADERS.
//
//go:embed wrk/call.lua
var wrkScript []byte

// wrkRunner drives a target with wrk, pinned to loadCPU, one thread and
// -conns connections.
type wrkRunner struct {
	bin    string // the wrk executable
	script string // call.lua written out
	conns  int
}

// newWrkRunner finds wrk (make bench installs it from Debian's packages
// when missing) and writes the script into dir.
func newWrkRunner(dir string, conns int) (*wrkRunner, error) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		return nil, errors.New("wrk is not installed (apt-get install -y wrk; make bench installs it)")
	}
	script := filepath.Join(dir, "call.lua")
	if err := os.WriteFile(script, wrkScript, 0o644); err != nil {
		return nil, err
	}
	return &wrkRunner{bin: bin, script: script, conns: conns}, nil
}

// wrkOutput is what one wrk run reports.
type wrkOutput struct {
	requests uint64
	rps      float64
	p50, p99 time.Duration
	bad      uint64 // non-2xx answers and socket errors
}

// exec runs wrk for d against target with c's request.
func (w *wrkRunner) exec(ctx context.Context, o options, target string, c call, d time.Duration) (wrkOutput, error) {
	argv := []string{w.bin, "-t1", "-c" + strconv.Itoa(w.conns), "-d" + strconv.Itoa(max(1, int(d.Seconds()))) + "s",
		"--timeout", "5s", "--latency", "-s", w.script, target}
	if !o.noPin {
		var err error
		if argv, err = pinnedArgv(loadCPU, argv); err != nil {
			return wrkOutput{}, err
		}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var hdr strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range c.header {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&hdr, "%s: %s\n", k, c.header.Get(k))
	}
	cmd.Env = append(withoutEnv(os.Environ(), pinnedEnv, "GOMAXPROCS"), "WRK_BODY="+c.body, "WRK_HEADERS="+hdr.String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return wrkOutput{}, fmt.Errorf("wrk: %w: %s", err, out.Bytes())
	}
	return parseWrk(out.String())
}

var (
	wrkRequests = regexp.MustCompile(`(?m)^\s*(\d+) requests in `)
	wrkRPS      = regexp.MustCompile(`(?m)^Requests/sec:\s*([0-9.]+)`)
	wrkQuantile = regexp.MustCompile(`(?m)^\s*(50|99)%\s+([0-9.]+)(us|ms|s)\s*$`)
	wrkNon2xx   = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses:\s*(\d+)`)
	wrkSocket   = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// parseWrk reads the report of wrk --latency.
func parseWrk(s string) (wrkOutput, error) {
	var r wrkOutput
	m := wrkRequests.FindStringSubmatch(s)
	rps := wrkRPS.FindStringSubmatch(s)
	if m == nil || rps == nil {
		return r, fmt.Errorf("wrk: unexpected report: %s", s)
	}
	r.requests, _ = strconv.ParseUint(m[1], 10, 64)
	r.rps, _ = strconv.ParseFloat(rps[1], 64)
	for _, q := range wrkQuantile.FindAllStringSubmatch(s, -1) {
		v, _ := strconv.ParseFloat(q[2], 64)
		unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[q[3]]
		d := time.Duration(v * float64(unit))
		if q[1] == "50" {
			r.p50 = d
		} else {
			r.p99 = d
		}
	}
	if r.p99 == 0 {
		return r, fmt.Errorf("wrk: no latency distribution in: %s", s)
	}
	if n := wrkNon2xx.FindStringSubmatch(s); n != nil {
		v, _ := strconv.ParseUint(n[1], 10, 64)
		r.bad += v
	}
	if n := wrkSocket.FindStringSubmatch(s); n != nil {
		for _, f := range n[1:] {
			v, _ := strconv.ParseUint(f, 10, 64)
			r.bad += v
		}
	}
	return r, nil
}

// runWrk is runLoad with wrk as the load generator: a warm-up run, then
// the measured one, the target's CPU time read from /proc around it.
func runWrk(ctx context.Context, o options, w *wrkRunner, target string, c call, proc *child) (loadResult, error) {
	if _, err := w.exec(ctx, o, target, c, warmUp); err != nil {
		return loadResult{}, err
	}
	srvBefore, _ := procCPU(proc.cmd.Process.Pid)
	cpusBefore := cpuTimes()
	start := time.Now()
	out, err := w.exec(ctx, o, target, c, o.duration)
	window := time.Since(start)
	srvAfter, _ := procCPU(proc.cmd.Process.Pid)
	cpusAfter := cpuTimes()
	if err != nil {
		return loadResult{}, err
	}
	if err := proc.alive(); err != nil {
		return loadResult{}, err
	}
	res := loadResult{requests: out.requests, rps: out.rps, p50: out.p50, p99: out.p99, errors: int(out.bad)}
	if out.bad > 0 {
		res.firstErr = fmt.Sprintf("wrk counted %d non-2xx answers or socket errors", out.bad)
	}
	res.serverCPU = float64(srvAfter-srvBefore) / float64(window)
	if out.requests > 0 {
		res.cpuPerReq = (srvAfter - srvBefore) / time.Duration(out.requests)
	}
	// wrk's own CPU is what CPU loadCPU spent busy beyond other processes'
	// share, which is not known apart: report the core's busy share.
	if b, a := cpusBefore[loadCPU], cpusAfter[loadCPU]; a.total > b.total {
		res.loadCPU = float64(a.busy-b.busy) / float64(a.total-b.total)
	}
	if b, a := cpusBefore[serverCPU], cpusAfter[serverCPU]; a.total > b.total {
		res.foreign = max(0, float64(a.busy-b.busy)/float64(a.total-b.total)-res.serverCPU)
	}
	return res, nil
}

// firstCall is the latency of a tool's first and second calls after its
// design entered the cache, medians over the repetitions.
type firstCall struct {
	first, second time.Duration
	firstMin      time.Duration
	reps          int
}

// firstCallPause is the moment a client that thinks between listing the
// tools and calling one is taken to wait.
const firstCallPause = 2 * time.Millisecond

// measureFirstCall changes the design (which drops it from the cache),
// loads it again with a tools/list as a client does before calling, waits
// pause, then times two tools/call in a row; reps times.
func measureFirstCall(ctx context.Context, rest *restClient, serverID, mcpURL string, reps int, pause time.Duration) (firstCall, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(body string) (time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, mcpURL, strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		legacyCall.prepare(req)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		lat := time.Since(t0)
		if err != nil || resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("status %d: %s (%v)", resp.StatusCode, b, err)
		}
		return lat, nil
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	var firsts, seconds []time.Duration
	for i := range reps {
		if _, err := rest.call(ctx, "PATCH", "/api/servers/"+serverID,
			map[string]any{"description": fmt.Sprintf("Forecasts for agents under test (%d)", i)}, http.StatusOK); err != nil {
			return firstCall{}, err
		}
		// The change reaches the cache as a notification: give it time.
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return firstCall{}, err
		}
		if _, err := post(list); err != nil {
			return firstCall{}, err
		}
		if pause > 0 {
			time.Sleep(pause)
		}
		a, err := post(callBody)
		if err != nil {
			return firstCall{}, err
		}
		b, err := post(callBody)
		if err != nil {
			return firstCall{}, err
		}
		firsts, seconds = append(firsts, a), append(seconds, b)
	}
	slices.Sort(firsts)
	slices.Sort(seconds)
	return firstCall{first: firsts[len(firsts)/2], second: seconds[len(seconds)/2], firstMin: firsts[0], reps: reps}, nil
}
