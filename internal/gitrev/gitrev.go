// Package gitrev reads files as they are at a git revision, through the git command, without
// touching the checkout: one `git cat-file --batch` process answers every read.
package gitrev

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seam-dag/seam/internal/i18n"
)

// Tree is a repository's tree at one commit. Its methods may be called from one goroutine at
// a time or several: reads are serialised.
type Tree struct {
	root   string // the repository's top level, absolute, symlinks resolved
	rev    string // as the user named it
	commit string

	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	lang i18n.Lang
	// read are the files read so far, by path: the gate reads most of them twice (to see
	// whether a DAG changed, then to load it).
	read map[string]readResult
}

type readResult struct {
	b   []byte
	err error
}

// Open resolves rev in the git repository that holds dir and starts reading its tree. The
// errors say why in lang: dir is in no repository, git is not installed, rev names no commit
// (in a shallow clone, that history is missing). Close stops the reader.
//
// Two git processes do all the work, started side by side (each costs a process start, which
// is most of the gate's overhead on a small repository): rev-parse for the top level, and the
// cat-file that resolves rev and then reads every file.
func Open(ctx context.Context, dir, rev string, lang i18n.Lang) (*Tree, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, i18n.Errorf(lang, "--against needs git: %v", err)
	}
	if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\n\r") {
		return nil, i18n.Errorf(lang, "--against %s: a revision cannot start with '-' or hold a line break", rev)
	}
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	t := &Tree{rev: rev, cmd: cmd, in: in, out: bufio.NewReader(out), lang: lang, read: map[string]readResult{}}
	info, err := git(ctx, dir, "rev-parse", "--show-toplevel", "--is-shallow-repository")
	top, shallow, _ := strings.Cut(info, "\n")
	if err != nil {
		t.Close()
		return nil, i18n.Errorf(lang, "--against %s: %s is not in a git repository (%v)", rev, dir, err)
	}
	if t.root, err = filepath.EvalSymlinks(top); err != nil {
		t.Close()
		return nil, fmt.Errorf("repository root %s: %w", top, err)
	}
	if t.commit, err = t.resolve(); err != nil {
		t.Close()
		if shallow == "true" {
			return nil, i18n.Errorf(lang, "--against %s: no such revision in this shallow clone; fetch the history first (git fetch --unshallow, or fetch-depth: 0 in actions/checkout)", rev)
		}
		return nil, i18n.Errorf(lang, "--against %s: no such revision in %s (a branch, tag or commit; fetch it first if it is remote)", rev, t.root)
	}
	return t, nil
}

// resolve asks cat-file for the commit t.rev names.
func (t *Tree) resolve() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	objs, err := t.objects([]string{t.rev + "^{commit}"}, 0)
	if err != nil {
		return "", err
	}
	if objs[0].kind != "commit" {
		return "", fmt.Errorf("%s names no commit", t.rev)
	}
	return objs[0].oid, nil
}

// Root is the repository's top level: absolute, symlinks resolved.
func (t *Tree) Root() string { return t.root }

// ReadFile reads the file at rel (slash-separated, relative to Root) as it is at the commit.
// A file that is not there is an error wrapping fs.ErrNotExist; one larger than limit bytes
// (limit > 0) is refused. Each file is read once: later calls answer from memory.
func (t *Tree) ReadFile(rel string, limit int64) ([]byte, error) {
	if err := t.ReadFiles([]string{rel}, limit); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.read[rel]
	return r.b, r.err
}

// ReadFiles reads the files at rels into memory, for ReadFile, asking for all of them before
// reading the first answer: one round trip to git rather than one per file. It fails only
// when git does; a file's own error is ReadFile's.
func (t *Tree) ReadFiles(rels []string, limit int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ask []string
	for _, rel := range rels {
		if _, done := t.read[rel]; done || slices.Contains(ask, rel) {
			continue
		}
		if strings.ContainsAny(rel, "\n\r") || rel == "" || rel == ".." || strings.HasPrefix(rel, "../") {
			t.read[rel] = readResult{err: fmt.Errorf("%s: %w", rel, fs.ErrNotExist)}
			continue
		}
		ask = append(ask, rel)
	}
	if len(ask) == 0 {
		return nil
	}
	names := make([]string, len(ask))
	for i, rel := range ask {
		names[i] = t.commit + ":" + rel
	}
	objs, err := t.objects(names, limit)
	if err != nil {
		return err
	}
	for i, o := range objs {
		rel := ask[i]
		var r readResult
		switch {
		case o.kind == "":
			r.err = i18n.Errorf(t.lang, "%s does not exist at %s: %w", rel, t.rev, fs.ErrNotExist)
		case o.kind != "blob":
			r.err = i18n.Errorf(t.lang, "%s is a %s at %s, not a file: %w", rel, o.kind, t.rev, fs.ErrNotExist)
		case o.body == nil:
			r.err = i18n.Errorf(t.lang, "%s is over the limit of %d bytes at %s", rel, limit, t.rev)
		default:
			r.b = o.body
		}
		t.read[rel] = r
	}
	return nil
}

// object is one answer of cat-file: the object's id, its kind ("" when there is none) and
// its content (nil when it was larger than the limit).
type object struct {
	oid, kind string
	body      []byte
}

// objects asks cat-file for the objects names name, all at once (a goroutine writes the
// questions while the answers are read, so that neither pipe fills), and reads the answers
// in order. Contents larger than limit (limit > 0) are skipped. t.mu must be held.
func (t *Tree) objects(names []string, limit int64) ([]object, error) {
	if t.in == nil {
		return nil, errors.New("git cat-file: closed")
	}
	written := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(t.in)
		for _, n := range names {
			w.WriteString(n + "\n")
		}
		written <- w.Flush()
	}()
	out := make([]object, 0, len(names))
	var err error
	for range names {
		var o object
		if o, err = t.answer(limit); err != nil {
			break
		}
		out = append(out, o)
	}
	if err != nil {
		// The answers are out of step: stop cat-file (which unblocks the writer) for good.
		t.in.Close()
		t.in = nil
	}
	if werr := <-written; err == nil && werr != nil {
		err = werr
	}
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return out, nil
}

// answer reads one answer of cat-file.
func (t *Tree) answer(limit int64) (object, error) {
	head, err := t.out.ReadString('\n')
	if err != nil {
		return object{}, err
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		return object{}, nil // "<name> missing", or "ambiguous"
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return object{}, fmt.Errorf("bad header %q", head)
	}
	// The content is followed by a newline; it is read (or skipped) whatever its size, so
	// that the next answer starts in its place.
	if limit > 0 && size > limit {
		if _, err := t.out.Discard(int(size) + 1); err != nil {
			return object{}, err
		}
		return object{oid: f[0], kind: f[1]}, nil
	}
	buf := make([]byte, size+1)
	if _, err := io.ReadFull(t.out, buf); err != nil {
		return object{}, err
	}
	return object{oid: f[0], kind: f[1], body: buf[:size]}, nil
}

// Files lists the files under dir (slash-separated, relative to Root; "" for all) at the
// commit, in git's order.
func (t *Tree) Files(ctx context.Context, dir string) ([]string, error) {
	args := []string{"ls-tree", "-r", "--name-only", "-z", t.commit}
	if dir != "" {
		args = append(args, "--", dir)
	}
	out, err := git(ctx, t.root, args...)
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// Clone fetches the commit ref names (a branch or a tag) of the repository at url into dir,
// which must not exist or be empty, without checking anything out: only the objects are
// there, for Open. Nothing is written anywhere else.
func Clone(ctx context.Context, url, ref, dir string, lang i18n.Lang) error {
	if strings.HasPrefix(url, "-") || strings.HasPrefix(ref, "-") {
		return i18n.Errorf(lang, "consumer %s@%s: neither the repository nor the ref may start with '-'", url, ref)
	}
	if _, err := git(ctx, ".", "clone", "--quiet", "--no-checkout", "--depth", "1", "--branch", ref, "--", url, dir); err != nil {
		return i18n.Errorf(lang, "consumer %s@%s: cannot fetch it: %v", url, ref, err)
	}
	return nil
}

// Close stops the reader.
func (t *Tree) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.in != nil {
		t.in.Close()
		t.in = nil
	}
	if t.cmd.ProcessState != nil {
		return nil
	}
	return t.cmd.Wait()
}

// git runs git in dir and returns its output, trimmed; its error carries git's stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	// git never asks for credentials: there is nobody to answer in CI, and a prompt would
	// hang the gate. Its helpers (git-remote-https, ssh) may outlive a kill: stop waiting
	// for their output soon after.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	if os.Getenv("GIT_SSH_COMMAND") == "" {
		cmd.Env = append(cmd.Env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("%w: %s", err, msg)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
