// Package pgtest gives tests a PostgreSQL database of their own on the server that
// scripts/test.sh starts (scripts/pg-server.sh), named by $SEAM_TEST_POSTGRES.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Env names the variable that gives the tests a server: a postgres:// DSN of a superuser.
const Env = "SEAM_TEST_POSTGRES"

// Server returns the DSN in Env, or skips the test, saying why, when it is not set.
func Server(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		t.Skip(Env + " is not set: the PostgreSQL tests need a server (set by scripts/test.sh; SEAM_SKIP_POSTGRES=1 skips)")
	}
	return dsn
}

// Database creates a database of its own for the test, dropped at its end, and returns its
// DSN (with the server's password); it skips the test when Env is not set.
func Database(t testing.TB) string {
	t.Helper()
	admin := Server(t)
	ctx := context.Background()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "seam_test_" + hex.EncodeToString(b[:])
	if err := exec(ctx, admin, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := exec(ctx, admin, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("%s is not a URL", Env) // url's error would quote the password
	}
	u.Path = "/" + name
	return u.String()
}

// Password returns the password in dsn, for tests that check it is never shown.
func Password(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	p, _ := u.User.Password()
	return p
}

func exec(ctx context.Context, dsn, sql string) error {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}

// Cluster starts a PostgreSQL server of the test's own with scripts/pg-server.sh, for tests
// that stop or restart it, and stops it at the end of the test. It returns the server's DSN
// and a function that runs `scripts/pg-server.sh CMD` on it (restart). It skips the test when
// Env is not set: the machine is then not known to run PostgreSQL.
func Cluster(t testing.TB) (dsn string, ctl func(cmd string) error) {
	t.Helper()
	Server(t)
	script, err := script()
	if err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(t.TempDir(), "pg.env")
	out, err := osexec.Command(script, "start", "--env", envFile).CombinedOutput()
	if err != nil {
		t.Fatalf("%s start: %v\n%s", script, err, out)
	}
	t.Cleanup(func() {
		if out, err := osexec.Command(script, "stop", envFile).CombinedOutput(); err != nil {
			t.Errorf("%s stop: %v\n%s", script, err, out)
		}
	})
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, Env+"="); ok {
			dsn = v
		}
	}
	if dsn == "" {
		t.Fatalf("%s wrote no %s", envFile, Env)
	}
	return dsn, func(cmd string) error {
		if out, err := osexec.Command(script, cmd, envFile).CombinedOutput(); err != nil {
			return fmt.Errorf("pg-server.sh %s: %w\n%s", cmd, err, out)
		}
		return nil
	}
}

// script finds scripts/pg-server.sh in the module the test runs in.
func script() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "scripts", "pg-server.sh"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}
