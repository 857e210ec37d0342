package imagebuild

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// TestRunsAsNonRoot: the host's platform image, unpacked, runs: its
// entrypoint generates the demo tree into its working directory and
// serves it, answering a channel graph request with nodes. As root the
// test runs it chrooted into the unpacked filesystem with the config's
// uid and gid, so it demonstrably needs nothing outside the image and no
// root; otherwise it runs as the current user from the unpacked files.
func TestRunsAsNonRoot(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image holds linux binaries")
	}
	plat := "linux/" + runtime.GOARCH
	idx, meta := sharedImage(t)
	img := platformImages(t, idx)[plat]
	if img == nil {
		t.Skipf("the image has no %s binary to run here", plat)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	var uid, gid int
	if _, err := fmt.Sscanf(cf.Config.User, "%d:%d", &uid, &gid); err != nil {
		t.Fatalf("config user %q: %v", cf.Config.User, err)
	}
	asRoot := os.Geteuid() == 0
	root := unpack(t, img, asRoot)

	command := func(args ...string) *exec.Cmd {
		argv := append(slices.Clone(cf.Config.Entrypoint), args...)
		if asRoot {
			// Chroot comes before the exec and the chdir, so paths are
			// the image's own.
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = cf.Config.WorkingDir
			cmd.Env = cf.Config.Env
			cmd.SysProcAttr = &syscall.SysProcAttr{
				Chroot:     root,
				Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)},
			}
			return cmd
		}
		cmd := exec.Command(filepath.Join(root, argv[0]), argv[1:]...)
		cmd.Dir = filepath.Join(root, cf.Config.WorkingDir)
		for _, e := range cf.Config.Env {
			if strings.HasPrefix(e, "HOME=") {
				e = "HOME=" + filepath.Join(root, strings.TrimPrefix(e, "HOME="))
			}
			cmd.Env = append(cmd.Env, e)
		}
		return cmd
	}

	out, err := command("--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), meta.Version) {
		t.Fatalf("upgraph --version: %v\n%s", err, out)
	}
	if out, err := command("--log-level", "warn", "generate", "--demo", "--out", "tree").CombinedOutput(); err != nil {
		t.Fatalf("upgraph generate --demo: %v\n%s", err, out)
	}
	tree := filepath.Join(root, cf.Config.WorkingDir, "tree")
	if asRoot {
		var st syscall.Stat_t
		if err := syscall.Stat(tree, &st); err != nil {
			t.Fatal(err)
		}
		if int(st.Uid) != uid || int(st.Gid) != gid {
			t.Errorf("the generated tree is owned by %d:%d, want %d:%d", st.Uid, st.Gid, uid, gid)
		}
	}

	cmd := command("--log-level", "warn", "serve", "--dir", "tree", "--listen", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("serve exited with %v after SIGINT", err)
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Error("serve did not stop within 15 s of SIGINT")
		}
	})
	// serve's first line is "serving DIR on http://ADDR".
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
	}()
	var base string
	select {
	case line := <-lines:
		_, addr, ok := strings.Cut(strings.TrimSpace(line), " on ")
		if !ok {
			t.Fatalf("serve's first line: %q", line)
		}
		base = addr
	case <-time.After(30 * time.Second):
		t.Fatal("serve printed nothing within 30 s")
	}
	if asRoot {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("Uid:\t%d\t%d\t%d\t%d\n", uid, uid, uid, uid)
		if !strings.Contains(string(status), want) {
			t.Errorf("serve does not run as uid %d:\n%s", uid, status)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/graph?channel=stable-4.16&arch=amd64", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var graph struct {
		Nodes []struct {
			Version string `json:"version"`
		} `json:"nodes"`
	}
	if err := json.NewDecoder(res.Body).Decode(&graph); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /graph: %s, %v", res.Status, err)
	}
	if len(graph.Nodes) == 0 || graph.Nodes[0].Version == "" {
		t.Fatalf("GET /graph: no nodes: %+v", graph)
	}
	t.Logf("%s binary as %s: /graph has %d nodes", plat, map[bool]string{true: "uid " + cf.Config.User, false: "the current user"}[asRoot], len(graph.Nodes))
}

// unpack extracts img's layer into a new directory (readable by all, so
// by the image's user), with the layer's modes, and, as root, its owners.
func unpack(t *testing.T, img v1.Image, asRoot bool) string {
	t.Helper()
	root, err := os.MkdirTemp("", "imagebuild-rootfs-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range layerFiles(t, img) {
		name := strings.TrimSuffix(f.hdr.Name, "/")
		if !filepath.IsLocal(name) {
			t.Fatalf("layer entry %q escapes the root", f.hdr.Name)
		}
		path := filepath.Join(root, name)
		mode := f.hdr.FileInfo().Mode()
		if mode.IsDir() {
			err = os.Mkdir(path, 0o700)
		} else {
			err = os.WriteFile(path, f.body, 0o600)
		}
		if err == nil {
			// After creation: the umask does not apply, the sticky bit stays.
			err = os.Chmod(path, mode&(os.ModePerm|os.ModeSticky))
		}
		if err == nil && asRoot {
			err = os.Lchown(path, f.hdr.Uid, f.hdr.Gid)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}
