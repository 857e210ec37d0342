package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/syncbuf"
)

// listeningProc is an upgraph process that serves (serve, service).
type listeningProc struct {
	cmd    *exec.Cmd
	addr   string // http://127.0.0.1:PORT
	stderr *syncbuf.Buffer
}

// startListening runs upgraph with args and env in dir and waits until it
// prints the line saying where it serves ("serving X on http://…"). The
// caller stops it.
func startListening(t testing.TB, dir string, env []string, args ...string) *listeningProc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	p := &listeningProc{cmd: cmd, stderr: &syncbuf.Buffer{}}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	line, err := r.ReadString('\n')
	_, addr, ok := strings.Cut(strings.TrimSpace(line), " on ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("upgraph %s did not start (%v, %q):\n%s", args[0], err, line, p.stderr)
	}
	// Nothing more is printed, but the pipe is drained so that a line
	// would never block the process.
	go io.Copy(io.Discard, r)
	p.addr = addr
	return p
}

// readMetrics is every series of ADDR/metrics by name and labels (none
// when the server does not answer).
func readMetrics(addr string) map[string]float64 {
	m := map[string]float64{}
	resp, err := http.Get(addr + "/metrics")
	if err != nil {
		return m
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for line := range strings.Lines(string(body)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i >= 0 {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				m[line[:i]] = v
			}
		}
	}
	return m
}
