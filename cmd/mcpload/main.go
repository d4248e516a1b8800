// Command mcpload is the load run of mockmcp's MCP endpoint. It compares a
// warm tools/call against a bare net/http reference that sends the very same
// bytes, and measures the memory of a large cache of compiled designs.
//
//	go run ./cmd/mcpload -bin bin/mockmcp [-duration 10s] [-conns 32] [-strict]
//
// What it does, in order:
//
//  1. Creates a throw-away database mockmcp_bench_<random> through the
//     administrative URL (-database-url), dropped at the end even on failure.
//  2. Starts the mockmcp binary (-bin; built with go build when missing) as
//     a child process pinned to CPU 0 with GOMAXPROCS=1 and LOG_LEVEL=warn,
//     on a free loopback port, and waits for /api/health.
//  3. Seeds it through the REST API: signs up, creates a server with a tool
//     get_forecast (city: string, required; days: integer) of five mock
//     scenarios, and enables it. The benchmarked call matches the third.
//  4. Fetches the real reply once and starts the reference: this binary
//     re-executed with -reference-server, also pinned to CPU 0 with
//     GOMAXPROCS=1. Its handler reads the body, decodes the JSON-RPC request
//     with encoding/json and writes the captured reply with the same headers.
//  5. Runs the load generator in this process, pinned to CPU 1 with
//     GOMAXPROCS=1 (the process re-executes itself under taskset, or sets its
//     affinity with sched_setaffinity when taskset is missing): -conns
//     keep-alive connections, each a loop of POSTs checking status 200 and
//     the expected text. Each target gets a 2 s warm-up and a -duration
//     measurement, alternately (reference, mockmcp, reference, mockmcp for
//     -rounds 2); the medians are reported. The same call as a client of
//     the modern MCP revision sends it (_meta in params; the version, method and
//     name in headers) runs against both too (ref-2026, mcp-2026) and is
//     reported apart. Latencies go into a fixed-bucket
//     log-linear histogram (under 0.8% relative error).
//  6. Inserts -servers enabled servers of -tools tools each (distinct small
//     input schemas, three scenarios) straight into the database with COPY,
//     warms every one with a tools/list, and reads VmRSS and VmHWM of the
//     mockmcp process from /proc; then calls every tool once and reads them
//     again; then inserts servers up to -many-servers, warms them all, and
//     reads them a third time, with the number of designs cached (from the
//     service's metrics).
//
// With -load wrk the load generator is wrk instead (one thread, -conns
// connections, --latency; its script is wrk/call.lua, which posts the
// request of WRK_BODY with the headers of WRK_HEADERS), pinned to CPU 1 as
// this process would be. The report then adds each round's p99 ratios
// (the lowest is the least disturbed round) and the first tools/call after
// the design loads against the second (-first-calls times: the design is
// changed, which drops it from the cache, listed with tools/list, then
// called twice). make bench-wrk runs it with -servers 0.
//
// The report also gives each target's CPU time per request, read from
// /proc: their ratio is the throughput ratio both would reach with their CPU
// to themselves, and it holds when the machine is busy (other processes'
// share of the pinned CPUs is reported as noise) or when the load generator,
// which costs about as much per request as the reference, limits it.
//
// Exit status: 1 when the run fails, which any failed request does; 2 with
// -strict when a target is missed (throughput ratio below 0.75 or p99 ratio
// above 2.0 in either protocol era; RSS of 150 MiB or more with -servers
// designs cached, 200 MiB once each of their tools was called, 400 MiB with
// -many-servers designs cached); 0 otherwise.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/mockmcp/mockmcp/internal/protocol"
)

// Targets of the run.
const (
	targetThroughputRatio = 0.75
	targetP99Ratio        = 2.0
	targetRSSMiB          = 150.0
	// targetCalledRSSMiB: the -servers designs cached, each of their tools
	// called once; targetManyRSSMiB: -many-servers designs cached.
	targetCalledRSSMiB = 200.0
	targetManyRSSMiB   = 400.0
	// targetProductionRatio: production mode (rate limits, memory store)
	// keeps this share of development mode's throughput.
	targetProductionRatio = 0.90
)

// The benchmarked request and what its reply must contain: the response of
// the third scenario, which only that scenario has.
const (
	toolName   = "get_forecast"
	callBody   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Oslo","days":3}}}`
	expectText = "light snow"
	acceptHdr  = "application/json, text/event-stream"
	// modernBody is the same call as a client of the modern revision sends it:
	// the version and client capabilities in params._meta, repeated with
	// the method and the tool's name in headers (modernCall).
	modernBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Oslo","days":3},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"` + protocol.Modern + `","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1.0.0"}}}}`
	warmUp    = 2 * time.Second
	pinnedEnv = "MCPLOAD_PINNED"
	serverCPU = 0
	loadCPU   = 1
)

// call is the benchmarked request of one protocol era: its body and the
// headers it adds.
type call struct {
	era    string
	body   string
	header http.Header
}

var (
	legacyCall = call{era: "legacy", body: callBody}
	modernCall = call{era: protocol.Modern, body: modernBody, header: http.Header{
		"Mcp-Protocol-Version": {protocol.Modern}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {toolName}}}
)

// prepare sets c's headers on req.
func (c call) prepare(req *http.Request) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptHdr)
	for k, v := range c.header {
		req.Header[k] = v
	}
}

type options struct {
	duration time.Duration
	conns    int
	rounds   int
	bin      string
	adminURL string
	servers  int
	many     int
	tools    int
	strict   bool
	noPin    bool
	redisURL string
	// load is the load generator: "go" (this process) or "wrk".
	load string
	// firstCalls is how many times the first and second calls after a
	// design loads are timed; 0 skips it.
	firstCalls int
}

func main() {
	var (
		o         options
		reference = flag.Bool("reference-server", false, "internal: serve the reference endpoint (reads the reply from stdin)")
		listen    = flag.String("listen", "", "internal: address of the reference endpoint")
		execOnCPU = flag.Int("exec-on-cpu", -1, "internal: pin to this CPU and execute the remaining arguments")
	)
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured time per target and round")
	flag.IntVar(&o.conns, "conns", 32, "keep-alive connections of the load generator")
	flag.IntVar(&o.rounds, "rounds", 2, "alternating rounds (reference, mockmcp) whose median is reported")
	flag.StringVar(&o.bin, "bin", "bin/mockmcp", "mockmcp binary; built with go build when missing")
	flag.StringVar(&o.adminURL, "database-url", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable",
		"administrative PostgreSQL URL; the throw-away database is created and dropped through it")
	flag.IntVar(&o.servers, "servers", 1000, "servers created for the memory measurement")
	flag.IntVar(&o.many, "many-servers", 10000, "servers cached for the second memory measurement (more than -servers; 0 skips it)")
	flag.IntVar(&o.tools, "tools", 20, "tools per server for the memory measurement")
	flag.BoolVar(&o.strict, "strict", false, "exit non-zero when a target is missed")
	flag.BoolVar(&o.noPin, "no-pin", false, "do not pin processes to CPUs")
	flag.StringVar(&o.redisURL, "redis-url", "redis://127.0.0.1:6379/0", "Redis for the production run with shared counters; empty to skip it")
	flag.StringVar(&o.load, "load", "go", "load generator: go (this process) or wrk (one thread, -conns connections, --latency)")
	flag.IntVar(&o.firstCalls, "first-calls", 15, "times the first and second tools/call after a design loads are measured; 0 skips it")
	flag.Parse()

	switch {
	case *execOnCPU >= 0:
		die(execPinned(*execOnCPU, flag.Args()))
	case *reference:
		die(serveReference(*listen))
	}
	if o.duration <= 0 || o.conns < 1 || o.rounds < 1 || o.servers < 0 || o.tools < 1 || o.firstCalls < 0 {
		die(errors.New("-duration, -conns, -rounds and -tools must be positive, -servers and -first-calls not negative"))
	}
	if o.load != "go" && o.load != "wrk" {
		die(errors.New("-load is go or wrk"))
	}
	if !o.noPin && os.Getenv(pinnedEnv) == "" && runtime.NumCPU() < 2 {
		fmt.Fprintln(os.Stderr, "mcpload: fewer than 2 CPUs available; not pinning")
		o.noPin = true
	}
	if !o.noPin && os.Getenv(pinnedEnv) == "" {
		// Run the load generator on its own CPU: re-execute this process
		// pinned to loadCPU with GOMAXPROCS=1. It never returns on success.
		die(repinSelf())
	}
	runtime.GOMAXPROCS(1)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpload: FAILED:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func die(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpload:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ---------------------------------------------------------------------------
// CPU pinning

// pinnedArgv returns the argv that runs argv on cpu: through taskset when it
// is installed, else through this binary's -exec-on-cpu, which sets the
// affinity and executes argv in place. Either way the pid is argv's.
func pinnedArgv(cpu int, argv []string) ([]string, error) {
	if ts, err := exec.LookPath("taskset"); err == nil {
		return append([]string{ts, "-c", strconv.Itoa(cpu)}, argv...), nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return append([]string{self, "-exec-on-cpu", strconv.Itoa(cpu), "--"}, argv...), nil
}

// repinSelf re-executes this process on loadCPU with GOMAXPROCS=1.
func repinSelf() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	env := append(os.Environ(), pinnedEnv+"=1", "GOMAXPROCS=1")
	argv := append([]string{self}, os.Args[1:]...)
	if ts, err := exec.LookPath("taskset"); err == nil {
		return syscall.Exec(ts, append([]string{ts, "-c", strconv.Itoa(loadCPU)}, argv...), env)
	}
	runtime.LockOSThread()
	if err := setAffinity(loadCPU); err != nil {
		return fmt.Errorf("pin to CPU %d: %w", loadCPU, err)
	}
	return syscall.Exec(self, argv, env)
}

// execPinned pins the calling thread to cpu and executes argv on it; the
// new program inherits the thread's affinity.
func execPinned(cpu int, argv []string) error {
	if len(argv) == 0 {
		return errors.New("-exec-on-cpu needs a command")
	}
	runtime.LockOSThread()
	if err := setAffinity(cpu); err != nil {
		return fmt.Errorf("pin to CPU %d: %w", cpu, err)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}

// setAffinity restricts the calling thread to one CPU (sched_setaffinity).
func setAffinity(cpu int) error {
	var mask [16]uint64 // 1024 CPUs
	if cpu < 0 || cpu >= 64*len(mask) {
		return fmt.Errorf("CPU %d out of range", cpu)
	}
	mask[cpu/64] = 1 << (cpu % 64)
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	if errno != 0 {
		return errno
	}
	return nil
}

// ---------------------------------------------------------------------------
// The reference server

// capturedReply is the real endpoint's reply, handed to the reference on its
// standard input.
type capturedReply struct {
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// rpcRequest is what the reference decodes: a tools/call request, with
// the _meta of a modern one.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Meta      map[string]any `json:"_meta"`
	} `json:"params"`
}

// referenceReplies are the captured replies the reference sends: the
// modern one to a request naming its method in Mcp-Method.
type referenceReplies struct {
	Legacy capturedReply `json:"legacy"`
	Modern capturedReply `json:"modern"`
}

// serveReference is the bare reference: a net/http server whose handler
// reads and decodes the request and writes the captured reply.
func serveReference(addr string) error {
	var replies referenceReplies
	if err := json.NewDecoder(os.Stdin).Decode(&replies); err != nil {
		return fmt.Errorf("reference: read the reply: %w", err)
	}
	headerOf := func(r capturedReply) http.Header {
		h := r.Header.Clone()
		h.Del("Date")
		h.Del("Content-Length")
		return h
	}
	legacyHeader, modernHeader := headerOf(replies.Legacy), headerOf(replies.Modern)
	bufs := sync.Pool{New: func() any { return new(bytes.Buffer) }}

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := bufs.Get().(*bytes.Buffer)
		defer bufs.Put(buf)
		buf.Reset()
		if _, err := buf.ReadFrom(io.LimitReader(r.Body, 1<<20)); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		var req rpcRequest
		if err := json.Unmarshal(buf.Bytes(), &req); err != nil || req.JSONRPC != "2.0" ||
			req.Method != "tools/call" || req.Params.Name != toolName || len(req.ID) == 0 {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		header, body := legacyHeader, replies.Legacy.Body
		if len(r.Header["Mcp-Method"]) > 0 {
			header, body = modernHeader, replies.Modern.Body
		}
		h := w.Header()
		for k, v := range header {
			h[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	return srv.Serve(ln)
}

// ---------------------------------------------------------------------------
// The run

// child is a process started by the run.
type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when it exits
	err  error         // its exit, once done is closed
}

func run(ctx context.Context, o options) (code int, err error) {
	if o.load == "wrk" {
		fmt.Printf("mcpload: %s, load generator wrk (1 thread), %d connections, %s warm-up + %s per target x %d rounds\n",
			runtime.Version(), o.conns, warmUp, o.duration, o.rounds)
	} else {
		fmt.Printf("mcpload: %s, load generator GOMAXPROCS=%d, %d connections, %s warm-up + %s per target x %d rounds\n",
			runtime.Version(), runtime.GOMAXPROCS(0), o.conns, warmUp, o.duration, o.rounds)
	}
	var wrk *wrkRunner
	if o.load == "wrk" {
		dir, err := os.MkdirTemp("", "mcpload-wrk-")
		if err != nil {
			return 1, err
		}
		defer os.RemoveAll(dir)
		if wrk, err = newWrkRunner(dir, o.conns); err != nil {
			return 1, err
		}
	}
	if o.noPin {
		fmt.Println("mcpload: WARNING: processes are not pinned; figures are not comparable")
	} else {
		fmt.Printf("mcpload: servers pinned to CPU %d (GOMAXPROCS=1), load generator pinned to CPU %d\n", serverCPU, loadCPU)
	}

	bin, err := ensureBinary(ctx, o.bin)
	if err != nil {
		return 1, err
	}

	// 1. The throw-away database.
	dbURL, drop, err := createDatabase(ctx, o.adminURL)
	if err != nil {
		return 1, err
	}
	defer func() {
		if derr := drop(); derr != nil {
			fmt.Fprintln(os.Stderr, "mcpload: drop the database:", derr)
			if err == nil {
				err = derr
			}
		}
	}()

	// 2. mockmcp.
	mcpAddr, err := freeAddr()
	if err != nil {
		return 1, err
	}
	metricsAddr, err := freeAddr()
	if err != nil {
		return 1, err
	}
	base := "http://" + mcpAddr
	// startMock starts mockmcp on mcpAddr and waits until it answers.
	startMock := func() (*child, error) {
		c, err := startChild(o, "mockmcp", []string{bin, "serve"}, []string{
			"DATABASE_URL=" + dbURL, "LISTEN_ADDR=" + mcpAddr, "METRICS_ADDR=" + metricsAddr, "LOG_LEVEL=warn", "APP_ENV=development",
			"BASE_URL=", "GOMAXPROCS=1",
		}, nil)
		if err != nil {
			return nil, err
		}
		if err := waitHealthy(ctx, base+"/api/health", c, 90*time.Second); err != nil {
			c.stop()
			return nil, err
		}
		return c, nil
	}
	mock, err := startMock()
	if err != nil {
		return 1, err
	}
	defer func() { mock.stop() }()
	idleRSS, _ := readMemory(mock.cmd.Process.Pid)

	// 3. Seed through the REST API.
	seed, err := seedForecast(ctx, base)
	if err != nil {
		return 1, fmt.Errorf("seed: %w", err)
	}
	mcpURL := base + "/api/platform/" + seed.serverID + "/mcp"

	// 4. The real reply, then the reference sending the same bytes.
	reply, err := fetchReply(ctx, mcpURL, legacyCall)
	if err != nil {
		return 1, err
	}
	modernReply, err := fetchReply(ctx, mcpURL, modernCall)
	if err != nil {
		return 1, err
	}
	refAddr, err := freeAddr()
	if err != nil {
		return 1, err
	}
	self, err := os.Executable()
	if err != nil {
		return 1, err
	}
	replyJSON, _ := json.Marshal(referenceReplies{Legacy: reply, Modern: modernReply})
	ref, err := startChild(o, "reference", []string{self, "-reference-server", "-listen", refAddr},
		[]string{"GOMAXPROCS=1"}, bytes.NewReader(replyJSON))
	if err != nil {
		return 1, err
	}
	defer ref.stop()
	refURL := "http://" + refAddr + "/api/platform/" + seed.serverID + "/mcp"
	if err := waitReference(ctx, refURL, legacyCall, reply.Body, ref); err != nil {
		return 1, err
	}
	if err := waitReference(ctx, refURL, modernCall, modernReply.Body, ref); err != nil {
		return 1, err
	}
	fmt.Printf("mcpload: request %d bytes, reply %d bytes (identical from both), Content-Type %s\n",
		len(callBody), len(reply.Body), reply.Header.Get("Content-Type"))
	fmt.Printf("mcpload: MCP %s: request %d bytes, reply %d bytes\n", protocol.Modern, len(modernBody), len(modernReply.Body))

	// 5. The same database served in production mode (rate limits on, a
	// limit no run reaches), with counters in memory and in Redis.
	type target struct {
		name, url string
		proc      *child
		call      call
	}
	targets := []target{{"reference", refURL, ref, legacyCall}, {"mockmcp", mcpURL, mock, legacyCall},
		{"ref-2026", refURL, ref, modernCall}, {"mcp-2026", mcpURL, mock, modernCall}}
	prodEnv := []string{"DATABASE_URL=" + dbURL, "LOG_LEVEL=warn", "APP_ENV=production", "BASE_URL=", "GOMAXPROCS=1",
		"MAX_PUBLIC_RATE_LIMIT=1000000000", "REDIS_URL=", "METRICS_ADDR="}
	variants := []struct{ name, redis string }{{"prod-mem", ""}}
	if o.redisURL != "" {
		variants = append(variants, struct{ name, redis string }{"prod-redis", o.redisURL})
	}
	for _, v := range variants {
		addr, err := freeAddr()
		if err != nil {
			return 1, err
		}
		env := append(slices.Clone(prodEnv), "LISTEN_ADDR="+addr)
		if v.redis != "" {
			env = append(env, "REDIS_URL="+v.redis)
		}
		c, err := startChild(o, v.name, []string{bin, "serve"}, env, nil)
		if err != nil {
			return 1, err
		}
		defer c.stop()
		if err := waitHealthy(ctx, "http://"+addr+"/api/health", c, 90*time.Second); err != nil {
			return 1, err
		}
		url := "http://" + addr + "/api/platform/" + seed.serverID + "/mcp"
		if got, err := fetchReply(ctx, url, legacyCall); err != nil {
			return 1, fmt.Errorf("%s: %w", v.name, err)
		} else if got.Header.Get("X-RateLimit-Limit") == "" {
			return 1, fmt.Errorf("%s: no rate-limit headers in production mode", v.name)
		}
		targets = append(targets, target{v.name, url, c, legacyCall})
	}

	// 6. Load, alternately.
	results := map[string][]loadResult{}
	for round := 1; round <= o.rounds; round++ {
		for _, t := range targets {
			var res loadResult
			if wrk != nil {
				res, err = runWrk(ctx, o, wrk, t.url, t.call, t.proc)
			} else {
				res, err = runLoad(ctx, t.url, t.call, o.conns, o.duration, t.proc)
			}
			if err != nil {
				return 1, fmt.Errorf("%s round %d: %w", t.name, round, err)
			}
			fmt.Printf("  round %d %-9s %s\n", round, t.name, res)
			if res.errors > 0 {
				return 1, fmt.Errorf("%s round %d: %d failed requests (first: %s)", t.name, round, res.errors, res.firstErr)
			}
			results[t.name] = append(results[t.name], res)
		}
	}
	refMed, mcpMed := median(results["reference"]), median(results["mockmcp"])
	loadRSS, _ := readMemory(mock.cmd.Process.Pid)

	// The first call of a tool after its design loads, against the second.
	// Sent at once after the tools/list that loaded the design (a scripted
	// client), and a moment later (a client that thinks between the two,
	// as one driven by a model does, for far longer): warming runs in
	// between.
	var fc, fcPaused firstCall
	if o.firstCalls > 0 {
		if fc, err = measureFirstCall(ctx, seed.rest, seed.serverID, mcpURL, o.firstCalls, 0); err != nil {
			return 1, fmt.Errorf("first call: %w", err)
		}
		if fcPaused, err = measureFirstCall(ctx, seed.rest, seed.serverID, mcpURL, o.firstCalls, firstCallPause); err != nil {
			return 1, fmt.Errorf("first call: %w", err)
		}
	}

	// 7. Memory with many cached designs.
	var mem memoryResult
	if o.servers > 0 {
		mem, err = measureMemory(ctx, o, dbURL, base, "http://"+metricsAddr+"/metrics", seed.orgID, mock,
			func() (*child, error) {
				mock.stop()
				mock, err = startMock()
				return mock, err
			})
		if err != nil {
			return 1, fmt.Errorf("memory: %w", err)
		}
	}
	if err := mock.alive(); err != nil {
		return 1, err
	}

	// Report.
	tpRatio := mcpMed.rps / refMed.rps
	p99Ratio := float64(mcpMed.p99) / float64(refMed.p99)
	fmt.Println()
	for _, r := range []struct {
		name string
		res  loadResult
	}{{"reference", refMed}, {"mockmcp", mcpMed}} {
		fmt.Printf("%-10s %8s req/s  p50 %-7s p99 %-7s (server CPU %3.0f%%, %s CPU per request; load generator CPU %3.0f%%)\n",
			r.name, thousands(r.res.rps), ms(r.res.p50), ms(r.res.p99), r.res.serverCPU*100, us(r.res.cpuPerReq), r.res.loadCPU*100)
	}
	missed := []string{}
	fmt.Printf("throughput ratio %.2f (target >= %.2f)%s   p99 ratio %.2f (target <= %.1f)%s\n",
		tpRatio, targetThroughputRatio, mark(tpRatio >= targetThroughputRatio),
		p99Ratio, targetP99Ratio, mark(p99Ratio <= targetP99Ratio))
	if refMed.cpuPerReq > 0 && mcpMed.cpuPerReq > 0 {
		fmt.Printf("CPU per request ratio %.2f: throughput ratio %.2f when both saturate their CPU\n",
			float64(mcpMed.cpuPerReq)/float64(refMed.cpuPerReq), float64(refMed.cpuPerReq)/float64(mcpMed.cpuPerReq))
	}
	if max(refMed.foreign, mcpMed.foreign) > 0.10 {
		fmt.Printf("WARNING: other processes used up to %.0f%% of a pinned CPU during the runs; req/s and latencies are noisy\n",
			max(refMed.foreign, mcpMed.foreign)*100)
	}
	if max(refMed.loadCPU, mcpMed.loadCPU) > 0.90 {
		fmt.Println("WARNING: the load generator used over 90% of its CPU: it may limit the faster target; trust the CPU per request ratio")
	}
	if tpRatio < targetThroughputRatio {
		missed = append(missed, "throughput ratio")
	}
	if p99Ratio > targetP99Ratio {
		missed = append(missed, "p99 ratio")
	}
	// The modern revision: _meta and header checks on the hot path.
	refModern, mcpModern := median(results["ref-2026"]), median(results["mcp-2026"])
	modernRatio := mcpModern.rps / refModern.rps
	fmt.Printf("MCP %s: reference %s req/s (%s CPU per request), mockmcp %s req/s (%s CPU per request)\n", protocol.Modern,
		thousands(refModern.rps), us(refModern.cpuPerReq), thousands(mcpModern.rps), us(mcpModern.cpuPerReq))
	fmt.Printf("MCP %s: throughput ratio %.2f (target >= %.2f)%s   p99 ratio %.2f (target <= %.1f)%s", protocol.Modern, modernRatio,
		targetThroughputRatio, mark(modernRatio >= targetThroughputRatio), float64(mcpModern.p99)/float64(refModern.p99),
		targetP99Ratio, mark(float64(mcpModern.p99)/float64(refModern.p99) <= targetP99Ratio))
	if refModern.cpuPerReq > 0 && mcpModern.cpuPerReq > 0 {
		fmt.Printf("   CPU per request ratio %.2f", float64(mcpModern.cpuPerReq)/float64(refModern.cpuPerReq))
	}
	fmt.Println()
	if modernRatio < targetThroughputRatio {
		missed = append(missed, protocol.Modern+" throughput ratio")
	}
	if float64(mcpModern.p99)/float64(refModern.p99) > targetP99Ratio {
		missed = append(missed, protocol.Modern+" p99 ratio")
	}
	if len(results["reference"]) > 1 {
		// The per-round ratios: the noise of a shared machine shows in
		// their spread; the lowest is the least disturbed round.
		for _, pair := range [][2]string{{"reference", "mockmcp"}, {"ref-2026", "mcp-2026"}} {
			var ratios []string
			lo := math.Inf(1)
			for i := range results[pair[0]] {
				r := float64(results[pair[1]][i].p99) / float64(results[pair[0]][i].p99)
				lo = min(lo, r)
				ratios = append(ratios, fmt.Sprintf("%.2f", r))
			}
			fmt.Printf("%s/%s p99 ratio per round: %s (lowest %.2f)\n", pair[1], pair[0], strings.Join(ratios, ", "), lo)
		}
	}
	if fc.reps > 0 {
		fmt.Printf("first tools/call after the design loads (tools/list, then two calls; median of %d): first %s (lowest %s), second %s, first/second %.2f\n",
			fc.reps, us(fc.first), us(fc.firstMin), us(fc.second), float64(fc.first)/float64(fc.second))
		fmt.Printf("the same, the first call sent %s after the tools/list: first %s (lowest %s), second %s, first/second %.2f\n",
			firstCallPause, us(fcPaused.first), us(fcPaused.firstMin), us(fcPaused.second), float64(fcPaused.first)/float64(fcPaused.second))
	}
	devMed := mcpMed
	for _, v := range variants {
		m := median(results[v.name])
		ratio := m.rps / devMed.rps
		fmt.Printf("%-10s %8s req/s  p50 %-7s p99 %-7s (rate limits on); throughput vs development %.2f",
			v.name, thousands(m.rps), ms(m.p50), ms(m.p99), ratio)
		if v.redis == "" {
			fmt.Printf(" (target >= %.2f)%s", targetProductionRatio, mark(ratio >= targetProductionRatio))
			if ratio < targetProductionRatio {
				missed = append(missed, "production-mode throughput")
			}
		}
		fmt.Println()
	}
	fmt.Printf("RSS of mockmcp: idle %s, after load %s\n", mib(idleRSS.rss), mib(loadRSS.rss))
	if o.servers > 0 {
		rssMiB := float64(mem.after.rss) / (1 << 20)
		fmt.Printf("RSS with %d servers x %d tools cached: %s (target < %.0f MiB)%s   VmHWM %s\n",
			o.servers, o.tools, mib(mem.after.rss), targetRSSMiB, mark(rssMiB < targetRSSMiB), mib(mem.after.hwm))
		calledMiB := float64(mem.called.rss) / (1 << 20)
		fmt.Printf("  after calling every one of the %d tools once (%s): RSS %s (target < %.0f MiB)%s, VmHWM %s, Go heap in use %s\n",
			o.servers*o.tools, mem.callAll.Round(time.Millisecond), mib(mem.called.rss), targetCalledRSSMiB,
			mark(calledMiB < targetCalledRSSMiB), mib(mem.called.hwm), mib(int64(mem.calledHeap)))
		if calledMiB >= targetCalledRSSMiB {
			missed = append(missed, "RSS with every tool called")
		}
		fmt.Printf("  inserted in %s; first tools/list of each (loads and compiles) %s, %s per server; second pass (cached) %s\n",
			mem.insert.Round(time.Millisecond), mem.warm.Round(time.Millisecond),
			(mem.warm / time.Duration(o.servers)).Round(time.Microsecond), mem.rewarm.Round(time.Millisecond))
		if rssMiB >= targetRSSMiB {
			missed = append(missed, "RSS")
		}
		if o.many > o.servers {
			manyMiB := float64(mem.many.rss) / (1 << 20)
			fmt.Printf("RSS with %d servers x %d tools cached (a new process, listed only): %s (target < %.0f MiB)%s   VmHWM %s, Go heap in use %s; %.0f designs cached; loaded in %s\n",
				o.many, o.tools, mib(mem.many.rss), targetManyRSSMiB, mark(manyMiB < targetManyRSSMiB), mib(mem.many.hwm),
				mib(int64(mem.manyHeap)), mem.manyCached, mem.manyWarm.Round(time.Millisecond))
			if manyMiB >= targetManyRSSMiB {
				missed = append(missed, "RSS with many designs")
			}
			if mem.manyCached < float64(o.many) {
				missed = append(missed, "designs cached")
			}
		}
	}
	if len(missed) > 0 {
		fmt.Printf("targets missed: %s\n", strings.Join(missed, ", "))
		if o.strict {
			return 2, nil
		}
	} else {
		fmt.Println("all targets met")
	}
	return 0, nil
}

func mark(ok bool) string {
	if ok {
		return " ok"
	}
	return " MISSED"
}

// ensureBinary returns the path of the mockmcp binary, building it when it
// does not exist yet.
func ensureBinary(ctx context.Context, bin string) (string, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err == nil {
		return abs, nil
	}
	fmt.Printf("mcpload: %s is missing; go build -o %s ./cmd/mockmcp\n", bin, bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", abs, "./cmd/mockmcp")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build mockmcp (run from the module root, or pass -bin): %w", err)
	}
	return abs, nil
}

// createDatabase creates mockmcp_bench_<random> and returns its URL and a
// function that drops it.
func createDatabase(ctx context.Context, adminURL string) (string, func() error, error) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "mockmcp_bench_" + hex.EncodeToString(b)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", adminURL, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(cctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	fmt.Printf("mcpload: created database %s\n", name)
	drop := func() error {
		// Not ctx: the database is dropped after an interrupt too.
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(dctx, adminURL)
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(dctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return err
		}
		fmt.Printf("mcpload: dropped database %s\n", name)
		return nil
	}
	return u.String(), drop, nil
}

// freeAddr returns a loopback address with a port that is free now.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startChild starts argv pinned to serverCPU, with extra environment.
func startChild(o options, name string, argv, env []string, stdin io.Reader) (*child, error) {
	if !o.noPin {
		var err error
		if argv, err = pinnedArgv(serverCPU, argv); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(withoutEnv(os.Environ(), pinnedEnv, "GOMAXPROCS"), env...)
	cmd.Stdin = stdin
	cmd.Stdout = &prefixWriter{prefix: name + ": ", w: os.Stderr}
	cmd.Stderr = &prefixWriter{prefix: name + ": ", w: os.Stderr}
	// The child must not outlive this process, however it ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

func withoutEnv(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				return true
			}
		}
		return false
	})
}

// alive reports an error when the child has exited.
func (c *child) alive() error {
	select {
	case <-c.done:
		return fmt.Errorf("%s exited: %v", c.name, c.err)
	default:
		return nil
	}
}

// stop terminates the child: SIGTERM, then SIGKILL after 10 s.
func (c *child) stop() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// prefixWriter prefixes every line a child writes.
type prefixWriter struct {
	mu     sync.Mutex
	prefix string
	w      io.Writer
	line   []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line = append(p.line, b...)
	for {
		i := bytes.IndexByte(p.line, '\n')
		if i < 0 {
			break
		}
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.line[:i])
		p.line = p.line[i+1:]
	}
	return len(b), nil
}

func waitHealthy(ctx context.Context, healthURL string, c *child, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		if err := c.alive(); err != nil {
			return err
		}
		resp, err := client.Get(healthURL)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not healthy after %s (last: %v)", c.name, limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ---------------------------------------------------------------------------
// Seeding

type seeded struct {
	orgID, serverID string
	rest            *restClient // signed in as the server's owner
}

// restClient is a signed-in REST API session.
type restClient struct {
	base string
	http *http.Client
}

// call sends a JSON request and decodes the JSON answer, which must have
// status want.
func (c *restClient) call(ctx context.Context, method, path string, body any, want int) (map[string]any, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, out)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", method, path, err, out)
	}
	return m, nil
}

// seedForecast signs up and creates the enabled server with get_forecast.
func seedForecast(ctx context.Context, base string) (seeded, error) {
	jar, _ := cookiejar.New(nil)
	c := &restClient{base: base, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	signup, err := c.call(ctx, "POST", "/api/auth/signup", map[string]any{
		"email": "bench@example.com", "password": "correct horse battery", "organization_name": "Bench Labs",
	}, http.StatusCreated)
	if err != nil {
		return seeded{}, err
	}
	org, _ := signup["organization"].(map[string]any)
	orgID, _ := org["id"].(string)
	srv, err := c.call(ctx, "POST", "/api/servers", map[string]any{
		"name": "Weather", "description": "Forecasts for agents under test", "version": "1.0.0",
	}, http.StatusCreated)
	if err != nil {
		return seeded{}, err
	}
	serverID, _ := srv["id"].(string)
	if orgID == "" || serverID == "" {
		return seeded{}, errors.New("signup or server creation answered without ids")
	}
	_, err = c.call(ctx, "POST", "/api/servers/"+serverID+"/tools", map[string]any{
		"name":        toolName,
		"description": "Returns the forecast for a city.",
		"input_schema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"city": map[string]any{"type": "string"},
				"days": map[string]any{"type": "integer"},
			},
			"required": []string{"city"},
		},
		"mock_scenarios": []map[string]any{
			{"name": "atlantis", "condition": map[string]any{"city": "Atlantis"},
				"response": map[string]any{"error": "city under water"}},
			{"name": "paris", "condition": map[string]any{"field": "city", "operator": "equals", "value": "Paris"},
				"response": map[string]any{"city": "Paris", "forecast": "rain", "temp_c": 14}},
			{"name": "oslo", "condition": map[string]any{"city": "Oslo"},
				"response": map[string]any{"city": "Oslo", "forecast": "light snow", "temp_c": -4, "wind_kph": 12}},
			{"name": "rome_long_range", "condition": map[string]any{"field": "days", "operator": "gt", "value": 3},
				"response": map[string]any{"city": "Rome", "error": "forecasts reach three days ahead"}},
			{"name": "default", "condition": map[string]any{},
				"response": map[string]any{"forecast": "sunny", "temp_c": 21}},
		},
	}, http.StatusCreated)
	if err != nil {
		return seeded{}, err
	}
	if _, err := c.call(ctx, "PATCH", "/api/servers/"+serverID, map[string]any{"enabled": true}, http.StatusOK); err != nil {
		return seeded{}, err
	}
	return seeded{orgID: orgID, serverID: serverID, rest: c}, nil
}

// fetchReply sends the benchmarked call once and captures the reply.
func fetchReply(ctx context.Context, mcpURL string, c call) (capturedReply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, mcpURL, strings.NewReader(c.body))
	if err != nil {
		return capturedReply{}, err
	}
	c.prepare(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return capturedReply{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return capturedReply{}, err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(expectText)) ||
		!bytes.HasPrefix(body, []byte("event: message\ndata: ")) {
		return capturedReply{}, fmt.Errorf("tools/call answered %d: %s", resp.StatusCode, body)
	}
	return capturedReply{Header: resp.Header, Body: body}, nil
}

// waitReference waits for the reference and checks it sends the same body.
func waitReference(ctx context.Context, refURL string, call call, want []byte, c *child) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := c.alive(); err != nil {
			return err
		}
		got, err := fetchReply(ctx, refURL, call)
		if err == nil {
			if !bytes.Equal(got.Body, want) {
				return fmt.Errorf("the reference answers %q, not %q", got.Body, want)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("reference not ready: %w", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ---------------------------------------------------------------------------
// Load

// histogram counts durations in log-linear buckets: exact below 256 ns, then
// 128 buckets per power of two, so any value is known within 0.8%.
type histogram struct {
	counts [64 * 128]uint64
	n      uint64
}

func bucketOf(ns int64) int {
	if ns < 256 {
		return int(max(ns, 0))
	}
	shift := bits.Len64(uint64(ns)) - 8
	return 256 + (shift-1)*128 + int(uint64(ns)>>shift) - 128
}

// bucketValue is the middle of bucket i.
func bucketValue(i int) time.Duration {
	if i < 256 {
		return time.Duration(i)
	}
	shift := (i-256)/128 + 1
	mantissa := int64((i-256)%128 + 128)
	return time.Duration(mantissa<<shift + (int64(1)<<shift)/2)
}

func (h *histogram) record(d time.Duration) {
	h.counts[bucketOf(int64(d))]++
	h.n++
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= max(rank, 1) {
			return bucketValue(i)
		}
	}
	return bucketValue(len(h.counts) - 1)
}

// replayBody is a request body that is rewound before each request.
type replayBody struct{ bytes.Reader }

func (*replayBody) Close() error { return nil }

type workerStats struct {
	hist     histogram
	errors   int
	firstErr string
}

const (
	phaseWarm int32 = iota
	phaseMeasure
	phaseStop
)

type loadResult struct {
	requests  uint64
	rps       float64
	p50, p99  time.Duration
	errors    int
	firstErr  string
	serverCPU float64 // share of one CPU used by the target during the window
	// cpuPerReq is the target's CPU time per request: unlike req/s it does
	// not depend on how much of its CPU the target got.
	cpuPerReq time.Duration
	loadCPU   float64 // share of one CPU used by this process
	// foreign is the largest share of CPU 0 or CPU 1 that processes outside
	// the run used during the window: noise from the rest of the machine.
	foreign float64
}

func (r loadResult) String() string {
	s := fmt.Sprintf("%8s req/s  p50 %-7s p99 %-7s %8d requests  server CPU %3.0f%% (%s/req)  load generator CPU %3.0f%%  errors %d",
		thousands(r.rps), ms(r.p50), ms(r.p99), r.requests, r.serverCPU*100, us(r.cpuPerReq), r.loadCPU*100, r.errors)
	if r.foreign > 0.10 {
		s += fmt.Sprintf("  (NOISY: other processes used %.0f%% of a pinned CPU)", r.foreign*100)
	}
	return s
}

// runLoad drives conns keep-alive connections at target for a warm-up and
// then d, and reports what completed within the measured window.
func runLoad(ctx context.Context, target string, c call, conns int, d time.Duration, proc *child) (loadResult, error) {
	tr := &http.Transport{
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	var phase atomic.Int32
	stats := make([]*workerStats, conns)
	var wg sync.WaitGroup
	for i := range stats {
		stats[i] = &workerStats{}
		wg.Add(1)
		go func(st *workerStats) {
			defer wg.Done()
			worker(client, target, c, st, &phase)
		}(stats[i])
	}

	stopAll := func() { phase.Store(phaseStop); wg.Wait() }
	if err := sleep(ctx, warmUp); err != nil {
		stopAll()
		return loadResult{}, err
	}
	srvBefore, _ := procCPU(proc.cmd.Process.Pid)
	selfBefore := selfCPU()
	cpusBefore := cpuTimes()
	start := time.Now()
	phase.Store(phaseMeasure)
	err := sleep(ctx, d)
	phase.Store(phaseStop)
	window := time.Since(start)
	srvAfter, _ := procCPU(proc.cmd.Process.Pid)
	selfAfter := selfCPU()
	cpusAfter := cpuTimes()
	wg.Wait()
	if err != nil {
		return loadResult{}, err
	}
	if err := proc.alive(); err != nil {
		return loadResult{}, err
	}

	var all histogram
	res := loadResult{}
	for _, st := range stats {
		all.merge(&st.hist)
		res.errors += st.errors
		if res.firstErr == "" {
			res.firstErr = st.firstErr
		}
	}
	res.requests = all.n
	res.rps = float64(all.n) / window.Seconds()
	res.p50, res.p99 = all.quantile(0.50), all.quantile(0.99)
	res.serverCPU = float64(srvAfter-srvBefore) / float64(window)
	res.loadCPU = float64(selfAfter-selfBefore) / float64(window)
	if all.n > 0 {
		res.cpuPerReq = (srvAfter - srvBefore) / time.Duration(all.n)
	}
	for cpu, own := range map[int]float64{serverCPU: res.serverCPU, loadCPU: res.loadCPU} {
		b, a := cpusBefore[cpu], cpusAfter[cpu]
		if a.total > b.total {
			busy := float64(a.busy-b.busy) / float64(a.total-b.total)
			res.foreign = max(res.foreign, busy-own)
		}
	}
	return res, nil
}

// worker is one connection's loop: POST, read the whole reply, check it.
// Only requests completing inside the measured window are recorded.
func worker(client *http.Client, target string, c call, st *workerStats, phase *atomic.Int32) {
	req, err := http.NewRequest(http.MethodPost, target, nil)
	if err != nil {
		st.errors++
		st.firstErr = err.Error()
		return
	}
	c.prepare(req)
	req.ContentLength = int64(len(c.body))
	req.GetBody = func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(c.body)), nil
	}
	payload := []byte(c.body)
	expect := []byte(expectText)
	body := &replayBody{}
	var buf bytes.Buffer
	buf.Grow(4096)
	fail := func(msg string) {
		st.errors++
		if st.firstErr == "" {
			st.firstErr = msg
		}
		time.Sleep(10 * time.Millisecond) // no hot loop against a dead target
	}
	for phase.Load() != phaseStop {
		body.Reset(payload)
		req.Body = body
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			fail(err.Error())
			continue
		}
		buf.Reset()
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		lat := time.Since(t0)
		switch {
		case err != nil:
			fail("read reply: " + err.Error())
			continue
		case resp.StatusCode != http.StatusOK:
			fail(fmt.Sprintf("status %d: %.200s", resp.StatusCode, buf.Bytes()))
			continue
		case !bytes.Contains(buf.Bytes(), expect):
			fail(fmt.Sprintf("reply without %q: %.200s", expectText, buf.Bytes()))
			continue
		}
		if phase.Load() == phaseMeasure {
			st.hist.record(lat)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// median takes the median of each figure over the rounds independently.
func median(rs []loadResult) loadResult {
	med := func(get func(loadResult) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = get(r)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return loadResult{
		rps:       med(func(r loadResult) float64 { return r.rps }),
		p50:       time.Duration(med(func(r loadResult) float64 { return float64(r.p50) })),
		p99:       time.Duration(med(func(r loadResult) float64 { return float64(r.p99) })),
		serverCPU: med(func(r loadResult) float64 { return r.serverCPU }),
		loadCPU:   med(func(r loadResult) float64 { return r.loadCPU }),
		cpuPerReq: time.Duration(med(func(r loadResult) float64 { return float64(r.cpuPerReq) })),
		foreign:   med(func(r loadResult) float64 { return r.foreign }),
	}
}

// procCPU is the user+system CPU time of a process, all threads, from
// /proc/<pid>/stat (in clock ticks of 10 ms, USER_HZ on Linux).
func procCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may contain spaces: fields start after the last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, errors.New("malformed stat")
	}
	f := strings.Fields(string(raw[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, errors.New("malformed stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	stt, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+stt) * 10 * time.Millisecond, nil
}

// cpuTime is the time one CPU spent busy and in all, in clock ticks.
type cpuTime struct{ busy, total uint64 }

// cpuTimes reads the per-CPU lines of /proc/stat.
func cpuTimes() map[int]cpuTime {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	out := map[int]cpuTime{}
	for line := range strings.Lines(string(raw)) {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(f[0][3:])
		if err != nil {
			continue
		}
		var t cpuTime
		for i, v := range f[1:9] { // user nice system idle iowait irq softirq steal
			n, _ := strconv.ParseUint(v, 10, 64)
			t.total += n
			if i != 3 && i != 4 {
				t.busy += n
			}
		}
		out[cpu] = t
	}
	return out
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ---------------------------------------------------------------------------
// Memory

type memory struct{ rss, hwm int64 }

// readMemory reads VmRSS and VmHWM of pid.
func readMemory(pid int) (memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	defer f.Close()
	var m memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &m.rss
		case "VmHWM":
			dst = &m.hwm
		default:
			continue
		}
		fs := strings.Fields(v) // "12345 kB"
		if len(fs) == 2 && fs[1] == "kB" {
			n, _ := strconv.ParseInt(fs[0], 10, 64)
			*dst = n << 10
		}
	}
	return m, sc.Err()
}

type memoryResult struct {
	insert, warm, rewarm time.Duration
	after                memory
	// called is the memory once every tool of every server has been called,
	// so that every input schema's validation tree is built.
	callAll time.Duration
	called  memory
	// many is the memory with -many-servers designs cached (manyCached by
	// the service's count), warmed in manyWarm.
	many       memory
	manyCached float64
	manyWarm   time.Duration
	// calledHeap and manyHeap are the Go heap in use then, in bytes.
	calledHeap, manyHeap float64
}

// measureMemory inserts o.servers enabled servers of o.tools tools each
// with COPY, loads each into the cache with one tools/list, and reads the
// memory of the mockmcp process.
func measureMemory(ctx context.Context, o options, dbURL, base, metricsURL, orgID string, mock *child,
	restart func() (*child, error)) (memoryResult, error) {
	var res memoryResult
	org, err := uuid.Parse(orgID)
	if err != nil {
		return res, err
	}
	start := time.Now()
	ids, err := insertDesigns(ctx, dbURL, org, 0, o.servers, o.tools)
	if err != nil {
		return res, err
	}
	res.insert = time.Since(start)
	// Each insert notified the cache; let those notifications drain before
	// loading, so none of them drops a freshly compiled design.
	if err := sleep(ctx, time.Second); err != nil {
		return res, err
	}

	lastTool := fmt.Sprintf("tool_%02d", o.tools-1)
	pass := func() (time.Duration, error) {
		start := time.Now()
		err := listAll(ctx, base, ids, lastTool)
		return time.Since(start), err
	}
	if res.warm, err = pass(); err != nil {
		return res, err
	}
	if res.rewarm, err = pass(); err != nil {
		return res, err
	}
	if err := mock.alive(); err != nil {
		return res, err
	}
	if res.after, err = readMemory(mock.cmd.Process.Pid); err != nil {
		return res, err
	}
	start = time.Now()
	if err := callAll(ctx, base, ids, o.tools); err != nil {
		return res, err
	}
	res.callAll = time.Since(start)
	if err := mock.alive(); err != nil {
		return res, err
	}
	if res.called, err = readMemory(mock.cmd.Process.Pid); err != nil || o.many <= o.servers {
		return res, err
	}
	if res.calledHeap, err = readGauge(ctx, metricsURL, "go_memstats_heap_inuse_bytes"); err != nil {
		return res, err
	}
	more, err := insertDesigns(ctx, dbURL, org, o.servers, o.many-o.servers, o.tools)
	if err != nil {
		return res, err
	}
	// The many designs are measured in a new process, listed only: what
	// the calls above compiled is not in its figure.
	if mock, err = restart(); err != nil {
		return res, err
	}
	start = time.Now()
	if err := listAll(ctx, base, append(ids, more...), lastTool); err != nil {
		return res, err
	}
	res.manyWarm = time.Since(start)
	if err := mock.alive(); err != nil {
		return res, err
	}
	if res.many, err = readMemory(mock.cmd.Process.Pid); err != nil {
		return res, err
	}
	if res.manyHeap, err = readGauge(ctx, metricsURL, "go_memstats_heap_inuse_bytes"); err != nil {
		return res, err
	}
	res.manyCached, err = readGauge(ctx, metricsURL, "mockmcp_design_cache_entries")
	return res, err
}

// readGauge reads the value of an unlabelled metric from a Prometheus text
// exposition.
func readGauge(ctx context.Context, metricsURL, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("%s: no %s", metricsURL, name)
}

// callAll calls every tool of every server once, from a few connections,
// and checks each answer is the fallback scenario's.
func callAll(ctx context.Context, base string, ids []uuid.UUID, tools int) error {
	return fanOut(ctx, len(ids)*tools, func(client *http.Client, i int) error {
		s, t := i/tools, i%tools
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tool_%02d","arguments":{"s%d_t%d_name":"x"}}}`, t, s, t)
		if err := postExpect(ctx, client, base+"/api/platform/"+ids[s].String()+"/mcp", body, `\"kind\":\"default\"`); err != nil {
			return fmt.Errorf("server %s tool %d: %w", ids[s], t, err)
		}
		return nil
	})
}

// fanOut runs job(0..n-1) from a few workers sharing keep-alive
// connections, and returns the first error.
func fanOut(ctx context.Context, n int, job func(client *http.Client, i int) error) error {
	const workers = 8
	tr := &http.Transport{MaxIdleConnsPerHost: workers, MaxConnsPerHost: workers}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		firstEr error
		wg      sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := job(client, i); err != nil {
					mu.Lock()
					if firstEr == nil {
						firstEr = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstEr != nil {
		return firstEr
	}
	return ctx.Err()
}

func postExpect(ctx context.Context, client *http.Client, u, body, want string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptHdr)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !bytes.Contains(out, []byte(want)) {
		return fmt.Errorf("answered %d: %.300s", resp.StatusCode, out)
	}
	return nil
}

// toolSchema is a distinct small input schema for tool t of server s: its
// property names, bounds and enum differ from every other tool's.
func toolSchema(s, t int) (schema []byte, scenarios []byte, err error) {
	name := fmt.Sprintf("s%d_t%d_name", s, t)
	count := fmt.Sprintf("s%d_t%d_count", s, t)
	mode := fmt.Sprintf("s%d_t%d_mode", s, t)
	flagName := fmt.Sprintf("s%d_t%d_flag", s, t)
	schema, err = json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			name:     map[string]any{"type": "string", "maxLength": 16 + t, "description": fmt.Sprintf("name for tool %d of server %d", t, s)},
			count:    map[string]any{"type": "integer", "minimum": 0, "maximum": 100 + s},
			mode:     map[string]any{"type": "string", "enum": []string{"fast", "slow", fmt.Sprintf("m%d", s*1000+t)}},
			flagName: map[string]any{"type": "boolean"},
		},
		"required":             []string{name},
		"additionalProperties": false,
	})
	if err != nil {
		return nil, nil, err
	}
	scenarios, err = json.Marshal([]map[string]any{
		{"name": "match_name", "condition": map[string]any{"field": name, "operator": "equals", "value": "special"},
			"response": map[string]any{"ok": true, "server": s, "tool": t, "kind": "special"}},
		{"name": "match_count", "condition": map[string]any{count: 7},
			"response": map[string]any{"ok": true, "server": s, "tool": t, "kind": "seven"}},
		{"name": "fallback", "condition": map[string]any{},
			"response": map[string]any{"ok": true, "server": s, "tool": t, "kind": "default"}},
	})
	return schema, scenarios, err
}

// insertDesigns copies servers (numbered from first, so that their schemas
// differ from every other call's) and their tools into the database as the
// superuser (which bypasses row-level security) and returns the server ids.
func insertDesigns(ctx context.Context, dbURL string, org uuid.UUID, first, servers, tools int) ([]uuid.UUID, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())

	ids := make([]uuid.UUID, servers)
	serverRows := make([][]any, servers)
	toolRows := make([][]any, 0, servers*tools)
	for i := range servers {
		s := first + i // servers first.. differ from every other run's
		ids[i] = uuid.New()
		serverRows[i] = []any{ids[i], org, fmt.Sprintf("Bulk server %d", s), "generated by mcpload", "1.0.0", true, "mcpload"}
		for t := range tools {
			schema, scenarios, err := toolSchema(s, t)
			if err != nil {
				return nil, err
			}
			toolRows = append(toolRows, []any{uuid.New(), org, ids[i], fmt.Sprintf("tool_%02d", t),
				fmt.Sprintf("Tool %d of bulk server %d.", t, s), string(schema), string(scenarios)})
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"mcp_servers"},
		[]string{"id", "organization_id", "name", "description", "version", "enabled", "created_by"},
		pgx.CopyFromRows(serverRows)); err != nil {
		return nil, fmt.Errorf("copy servers: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"mcp_tools"},
		[]string{"id", "organization_id", "server_id", "name", "description", "input_schema", "mock_scenarios"},
		pgx.CopyFromRows(toolRows)); err != nil {
		return nil, fmt.Errorf("copy tools: %w", err)
	}
	return ids, tx.Commit(ctx)
}

// listAll sends one tools/list to every server from a few connections and
// checks each answer lists the last tool.
func listAll(ctx context.Context, base string, ids []uuid.UUID, lastTool string) error {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	return fanOut(ctx, len(ids), func(client *http.Client, i int) error {
		if err := postExpect(ctx, client, base+"/api/platform/"+ids[i].String()+"/mcp", body, `"name":"`+lastTool+`"`); err != nil {
			return fmt.Errorf("server %s: %w", ids[i], err)
		}
		return nil
	})
}

// ---------------------------------------------------------------------------
// Formatting

func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + "ms"
}

func us(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 1, 64) + "µs"
}

func mib(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}
