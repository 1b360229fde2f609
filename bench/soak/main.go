// Command soak leaves three dashboards open on one demo gateway for a
// chosen time, the way an engineer leaves gwdash open all day, and prints
// what each cost:
//
//   - home: the batches home, idle, with batches in flight the whole time
//     (and one submitted from the command line midway: how long until the
//     home shows it);
//   - cycle: every view in turn, a batch opened and closed, every -cycle;
//   - talk: a playground conversation of -turns turns, then idle.
//
// Per dashboard: RSS at the start, the end and its peak, its slope per
// hour (a least-squares fit after the first minute), CPU per hour (and
// while idle for talk, after its last turn), bytes written to its state
// folder per hour, threads and open files, and whether RSS only grows.
// For talk, the per-turn lag: from Enter to the answer's end on the
// screen, at turns 1-10, 91-100 and the last ten.
//
// It drives tmux on its own socket and reads /proc: Linux only.
//
//	go build -o /tmp/gwdash . && go run ./bench/soak -bin /tmp/gwdash -duration 10m
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	bin      = flag.String("bin", "gwdash", "the gwdash binary")
	duration = flag.Duration("duration", 10*time.Minute, "how long the dashboards stay open")
	sample   = flag.Duration("sample", 5*time.Second, "how often each process is measured")
	turns    = flag.Int("turns", 200, "turns of the conversation")
	cycle    = flag.Duration("cycle", 25*time.Second, "time between two steps of the cycling dashboard")
	socket   = flag.String("socket", "gwsoak", "tmux socket name")
	keep     = flag.String("dir", "", "folder for state and logs (default: a new temporary one)")
)

const (
	apiKey  = "gw-demo-api-key-0000000000000000"
	mgmtKey = "gw-demo-mgmt-key-000000000000000"
)

func main() {
	flag.Parse()
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "gwsoak-")
		must(err)
		dir = d
	}
	port := 30000 + os.Getpid()%20000
	base := fmt.Sprintf("http://127.0.0.1:%d/api/v1", port)
	srvLog, err := os.Create(filepath.Join(dir, "serve.txt"))
	must(err)
	srv := exec.Command(*bin, "demo", "--serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port),
		"--batch-duration", (*duration * 3).String(), "--token-rate", "0", "--think-time", "0", "--generation-delay", "0s")
	srv.Stdout, srv.Stderr = srvLog, srvLog
	must(srv.Start())
	cleanups = append(cleanups, func() { srv.Process.Kill(); srv.Wait() })
	defer srv.Process.Kill()
	waitFor(func() bool { b, _ := os.ReadFile(srvLog.Name()); return strings.Contains(string(b), "press ctrl+c") }, 30*time.Second, "the demo gateway")
	cleanups = append(cleanups, func() { tmux("kill-server") })
	defer tmux("kill-server")

	env := func(name string) []string {
		st := filepath.Join(dir, name)
		must(os.MkdirAll(filepath.Join(st, "state", "gwdash"), 0o700))
		return []string{"XDG_STATE_HOME=" + filepath.Join(st, "state"), "XDG_CACHE_HOME=" + filepath.Join(st, "cache"),
			"XDG_CONFIG_HOME=" + filepath.Join(st, "config"), "GWDASH_BASE_URL=" + base, "GWDASH_API_KEY=" + apiKey,
			"GWDASH_MANAGEMENT_KEY=" + mgmtKey}
	}
	// Batches in flight for the whole run, submitted from "home"'s machine.
	jsonl := filepath.Join(dir, "requests.jsonl")
	var reqs strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&reqs, `{"custom_id":"q%d","body":{"messages":[{"role":"user","content":"hi %d"}]}}`+"\n", i, i)
	}
	must(os.WriteFile(jsonl, []byte(reqs.String()), 0o600))
	submit := func() string {
		c := exec.Command(*bin, "batch", "submit", jsonl, "--model", "openai/gpt-4o-mini", "--endpoint", "/v1/chat/completions")
		c.Env = append(os.Environ(), env("cli")...)
		out, err := c.Output()
		must(err)
		return strings.Fields(string(out))[0]
	}
	for i := 0; i < 4; i++ {
		submit()
	}

	dashes := []*dash{
		{name: "home", args: []string{}},
		{name: "cycle", args: []string{}},
		{name: "talk", args: []string{"--view", "playground", "--model", "demo/refusal"}},
	}
	for _, d := range dashes {
		d.state = filepath.Join(dir, d.name, "state")
		e := env(d.name)
		cmd := "exec env " + strings.Join(e, " ") + " " + *bin + " --log " + filepath.Join(dir, d.name+".log") + " " + strings.Join(d.args, " ")
		tmux("new-session", "-d", "-s", d.name, "-x", "160", "-y", "48", cmd)
		pid := strings.TrimSpace(tmuxOut("display", "-p", "-t", d.name+":", "#{pane_pid}"))
		d.pid, err = strconv.Atoi(pid)
		must(err)
	}
	waitFor(func() bool { return strings.Contains(capture("home"), "in flight") }, 60*time.Second, "the home")
	start := time.Now()
	end := start.Add(*duration)

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for _, d := range dashes {
		wg.Add(1)
		go func(d *dash) { defer wg.Done(); d.measure(start, stop) }(d)
	}
	// A batch submitted elsewhere midway: how long until the home shows it.
	appeared := make(chan time.Duration, 1)
	go func() {
		time.Sleep(min(*duration/3, 2*time.Minute))
		id := submit()
		at := time.Now()
		for time.Now().Before(end) {
			if strings.Contains(capture("home"), id) {
				appeared <- time.Since(at)
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
		appeared <- -1
	}()
	go cycleViews(end)
	lags, idleFrom := converse(end)
	talk := dashes[2]
	talk.mu.Lock()
	talk.idleFrom = idleFrom
	talk.mu.Unlock()
	time.Sleep(time.Until(end))
	close(stop)
	wg.Wait()

	elapsed := time.Since(start)
	fmt.Printf("soak: %s of three dashboards on one demo gateway (%s)\n\n", elapsed.Round(time.Second), dir)
	fmt.Println("| dashboard | RSS start → end (peak) | RSS slope/h | only grows | CPU/h (share of a core) | CPU/h idle | written/h | threads, fds start → end |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, d := range dashes {
		d.report(elapsed)
	}
	fmt.Println()
	select {
	case a := <-appeared:
		if a < 0 {
			fmt.Println("batch submitted elsewhere: not shown on the home before the end")
		} else {
			fmt.Printf("batch submitted elsewhere: on the home after %s\n", a.Round(time.Second))
		}
	case <-time.After(15 * time.Second):
		fmt.Println("batch submitted elsewhere: no answer (run too short)")
	}
	if len(lags) > 0 {
		fmt.Printf("conversation: %d turns; lag from Enter to the answer's end on screen (median): turns 1-10 %s", len(lags), median(lags, 0, 10))
		if len(lags) >= 100 {
			fmt.Printf(", 91-100 %s", median(lags, 90, 100))
		}
		fmt.Printf(", last ten %s\n", median(lags, len(lags)-10, len(lags)))
	}
}

type point struct {
	t        time.Duration
	rss      float64 // MiB
	cpu      float64 // seconds
	threads  int
	fds      int
	written  int64
	idleMark bool
}

type dash struct {
	name     string
	args     []string
	pid      int
	state    string
	mu       sync.Mutex
	points   []point
	idleFrom time.Time
	start    time.Time
}

// measure samples the process every -sample and its state folder every
// second (bytes written: growth of a file, or its whole size when it was
// replaced).
func (d *dash) measure(start time.Time, stop chan struct{}) {
	d.start = start
	files := map[string][2]int64{} // path -> inode, size
	var written int64
	scan := func() {
		filepath.Walk(d.state, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() || strings.HasSuffix(p, ".lock") {
				return nil
			}
			ino := inode(fi)
			old, ok := files[p]
			switch {
			case !ok || old[0] != ino:
				written += fi.Size()
			case fi.Size() > old[1]:
				written += fi.Size() - old[1]
			}
			files[p] = [2]int64{ino, fi.Size()}
			return nil
		})
	}
	scan()
	written = 0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	last := time.Time{}
	for {
		select {
		case <-stop:
			scan()
			d.sample(written)
			return
		case now := <-tick.C:
			scan()
			if now.Sub(last) >= *sample {
				last = now
				d.sample(written)
			}
		}
	}
}

func (d *dash) sample(written int64) {
	rss, threads := status(d.pid)
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", d.pid))
	d.mu.Lock()
	defer d.mu.Unlock()
	d.points = append(d.points, point{t: time.Since(d.start), rss: rss, cpu: cpuSeconds(d.pid), threads: threads, fds: len(fds), written: written,
		idleMark: !d.idleFrom.IsZero() && time.Now().After(d.idleFrom)})
}

func (d *dash) report(elapsed time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ps := d.points
	if len(ps) < 2 {
		fmt.Printf("| %s | too few samples | | | | | | |\n", d.name)
		return
	}
	first, last := ps[0], ps[len(ps)-1]
	peak := 0.0
	for _, p := range ps {
		peak = math.Max(peak, p.rss)
	}
	// slope after the first minute (start-up is not growth)
	var xs, ys []float64
	for _, p := range ps {
		if p.t >= time.Minute || elapsed < 3*time.Minute {
			xs, ys = append(xs, p.t.Hours()), append(ys, p.rss)
		}
	}
	slope := fit(xs, ys)
	hours := (last.t - first.t).Hours()
	cpuH := (last.cpu - first.cpu) / hours
	idle := "—"
	for i, p := range ps {
		if p.idleMark && i < len(ps)-1 {
			h := (last.t - p.t).Hours()
			if h*3600 >= 30 {
				idle = fmt.Sprintf("%.1f s (%.2f%%)", (last.cpu-p.cpu)/h, (last.cpu-p.cpu)/(h*3600)*100)
			}
			break
		}
	}
	if d.name == "home" {
		idle = fmt.Sprintf("%.1f s (%.2f%%)", cpuH, cpuH/3600*100)
	}
	fmt.Printf("| %s | %.1f → %.1f MiB (%.1f) | %+.1f MiB/h | %s | %.1f s (%.2f%%) | %s | %s | %d, %d → %d, %d |\n",
		d.name, first.rss, last.rss, peak, slope, onlyGrows(ys), cpuH, cpuH/3600*100, idle, bytes(float64(last.written-first.written)/hours),
		first.threads, first.fds, last.threads, last.fds)
}

// onlyGrows: every third of the run above the one before, by more than
// noise (2%).
func onlyGrows(ys []float64) string {
	if len(ys) < 6 {
		return "?"
	}
	n := len(ys) / 3
	a, b, c := mean(ys[:n]), mean(ys[n:2*n]), mean(ys[2*n:])
	if b > a*1.02 && c > b*1.02 {
		return "yes"
	}
	return "no"
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func fit(xs, ys []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	mx, my := mean(xs), mean(ys)
	var num, den float64
	for i := range xs {
		num += (xs[i] - mx) * (ys[i] - my)
		den += (xs[i] - mx) * (xs[i] - mx)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

func bytes(n float64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f B", n)
}

// cycleViews walks "cycle" through every view: the home, a batch opened
// and closed, the playground, the destinations.
func cycleViews(end time.Time) {
	steps := [][]string{{"1"}, {"j"}, {"Enter"}, {"Escape"}, {"2"}, {"3"}, {"j"}, {"1"}, {"k"}}
	for i := 0; time.Now().Before(end); i++ {
		for _, k := range steps[i%len(steps)] {
			tmux("send-keys", "-t", "cycle:", k)
		}
		time.Sleep(*cycle)
	}
}

// converse holds the conversation of "talk": a turn, then its end on the
// screen, timed; it returns the lags and when the last turn ended.
func converse(end time.Time) ([]time.Duration, time.Time) {
	var lags []time.Duration
	for n := 1; n <= *turns && time.Now().Before(end); n++ {
		prompt := fmt.Sprintf("turn %d", n)
		tmux("send-keys", "-t", "talk:", "Escape")
		// An escape followed at once by a key reads as alt+key (the
		// terminal's escape prefix): wait before i.
		time.Sleep(300 * time.Millisecond)
		tmux("send-keys", "-t", "talk:", "i")
		time.Sleep(50 * time.Millisecond)
		tmux("send-keys", "-t", "talk:", "-l", prompt)
		time.Sleep(50 * time.Millisecond)
		t0 := time.Now()
		tmux("send-keys", "-t", "talk:", "Enter")
		ok := waitUntil(func() bool { return answered(capture("talk"), prompt) }, 60*time.Second)
		if !ok {
			break
		}
		lags = append(lags, time.Since(t0))
	}
	return lags, time.Now()
}

// answered: the prompt is on screen with the answer's end below it, and
// nothing streams.
func answered(screen, prompt string) bool {
	lines := strings.Split(screen, "\n")
	at := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == prompt {
			at = i
		}
	}
	// the status bar's busy mark (a notice may say "streaming" too)
	if at < 0 || strings.Contains(screen, "⟳ streaming") {
		return false
	}
	for _, l := range lines[at+1:] {
		if strings.Contains(l, "routes requests") {
			return true
		}
	}
	return false
}

func median(v []time.Duration, a, b int) time.Duration {
	a, b = max(0, a), min(len(v), b)
	if a >= b {
		return 0
	}
	s := append([]time.Duration(nil), v[a:b]...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Millisecond)
}

func status(pid int) (rssMiB float64, threads int) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			continue
		}
		switch fs[0] {
		case "VmRSS:":
			kb, _ := strconv.ParseFloat(fs[1], 64)
			rssMiB = kb / 1024
		case "Threads:":
			threads, _ = strconv.Atoi(fs[1])
		}
	}
	return rssMiB, threads
}

func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	fs := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fs) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(fs[11], 64)
	k, _ := strconv.ParseFloat(fs[12], 64)
	return (u + k) / 100 // USER_HZ
}

func tmux(args ...string) { exec.Command("tmux", append([]string{"-L", *socket}, args...)...).Run() }

func tmuxOut(args ...string) string {
	out, _ := exec.Command("tmux", append([]string{"-L", *socket}, args...)...).Output()
	return string(out)
}

func capture(name string) string { return tmuxOut("capture-pane", "-p", "-t", name+":") }

func waitUntil(ok func() bool, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if ok() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// cleanups stop what was started (the gateway, tmux) on a failure.
var cleanups []func()

func fail(msg ...any) {
	fmt.Fprintln(os.Stderr, append([]any{"soak:"}, msg...)...)
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	os.Exit(1)
}

func waitFor(ok func() bool, limit time.Duration, what string) {
	if !waitUntil(ok, limit) {
		fail("timed out waiting for", what)
	}
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func inode(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Ino)
	}
	return 0
}
