package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seam-dag/seam/internal/i18n"
	"github.com/seam-dag/seam/runs"
	"github.com/seam-dag/seam/service"
)

// defaultStore is where runs are recorded unless --store or $SEAM_STORE say otherwise,
// relative to the current directory: a project's runs stay with the project.
const defaultStore = ".seam/seam.db"

// storeFlag is the --store flag of the commands that use the run store, --no-migrate of
// those that write it, and the language of what they say about the store (set once the
// command knows it; "" is English).
type storeFlag struct {
	path      string
	lang      i18n.Lang
	noMigrate bool
}

func (sf *storeFlag) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&sf.path, "store", "", "the run store: a file (SQLite) or a postgres:// URL (default: $SEAM_STORE, then "+defaultStore+")")
}

// addNoMigrate adds --no-migrate, for the commands that open the store to write.
func (sf *storeFlag) addNoMigrate(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&sf.noMigrate, "no-migrate", false, "refuse a store whose schema is older than this seam's instead of updating it (seam store migrate does)")
}

// resolve returns the store's location: --store, then $SEAM_STORE, then the default.
func (sf *storeFlag) resolve(e *env) string {
	if sf.path != "" {
		return sf.path
	}
	if p := e.getenv("SEAM_STORE"); p != "" {
		return p
	}
	return defaultStore
}

// openStore opens the store for writing, creating it when missing, and checks it is not
// damaged: a run must not start, with its side effects, on a store that cannot record it.
// Its errors are input errors (exit 2): nothing has run yet.
func openStore(ctx context.Context, e *env, sf *storeFlag) (runs.Store, error) {
	loc := sf.resolve(e)
	opts, err := sf.options(e)
	if err != nil {
		return nil, err
	}
	s, err := runs.OpenWith(ctx, loc, opts)
	if err != nil {
		if runs.IsPostgres(loc) {
			return nil, usage(i18n.Errorf(sf.lang, "%w\n  fix: check the server is up and the URL, user and password are right, or choose another store with --store or $SEAM_STORE (--no-store runs without one)", err))
		}
		return nil, usage(i18n.Errorf(sf.lang, "%w\n  fix: check the file, or choose another with --store or $SEAM_STORE (--no-store runs without one)", err))
	}
	return checkStore(ctx, s, sf.lang)
}

// openStoreToResume opens an existing store for writing, checked as openStore does: a
// resume (or a cancel that records a run) must not create an empty one where the user
// mistyped a path.
func openStoreToResume(ctx context.Context, e *env, sf *storeFlag) (runs.Store, error) {
	path, err := existingStore(e, sf)
	if err != nil {
		return nil, err
	}
	opts, err := sf.options(e)
	if err != nil {
		return nil, err
	}
	s, err := runs.OpenWith(ctx, path, opts)
	if err != nil {
		return nil, usage(err)
	}
	return checkStore(ctx, s, sf.lang)
}

// maxStoreRetry bounds $SEAM_STORE_RETRY: a run waits that long for its store at every write.
const maxStoreRetry = time.Hour

// options are the store's options: --no-migrate, and $SEAM_STORE_RETRY, how long a write
// waits for an unreachable PostgreSQL store before the run stops.
func (sf *storeFlag) options(e *env) (runs.Options, error) {
	o := runs.Options{NoMigrate: sf.noMigrate, Lang: sf.lang}
	if v := e.getenv("SEAM_STORE_RETRY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > maxStoreRetry {
			return o, usage(i18n.Errorf(sf.lang, "$SEAM_STORE_RETRY=%s: want a duration from 1s to %s (default %s)", v, maxStoreRetry, runs.DefaultRetryFor))
		}
		o.RetryFor = d
	}
	return o, nil
}

// checkStore refuses a damaged or unusable store, saying what to do with it.
func checkStore(ctx context.Context, s runs.Store, lang i18n.Lang) (runs.Store, error) {
	if err := s.Check(ctx); err != nil {
		s.Close()
		if !errors.Is(err, runs.ErrDamaged) {
			return nil, usage(err)
		}
		return nil, usage(i18n.Errorf(lang, "%w\n  fix: nothing ran; move the file aside (mv %s %s.damaged) for a new store, or recover its runs with sqlite3's .recover; --no-store runs without one", err, s.Path(), s.Path()))
	}
	return s, nil
}

// openStoreToRead opens an existing store read-only, for the commands that only read it:
// they must not create an empty one where the user mistyped a path, and they work where
// the store cannot be written (a read-only directory or mount).
func openStoreToRead(ctx context.Context, e *env, sf *storeFlag) (runs.Store, error) {
	path, err := existingStore(e, sf)
	if err != nil {
		return nil, err
	}
	s, err := runs.OpenReadOnlyWith(ctx, path, runs.Options{Lang: sf.lang})
	if err != nil {
		return nil, usage(err)
	}
	return s, nil
}

// existingStore returns the store's location, or why there is no store there. A
// PostgreSQL database is opened to find out.
func existingStore(e *env, sf *storeFlag) (string, error) {
	path := sf.resolve(e)
	if runs.IsPostgres(path) {
		return path, nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", usage(i18n.Errorf(sf.lang, "no run store at %s: `seam run` creates it; --store or $SEAM_STORE name another", runs.Redact(path)))
	}
	return path, nil
}

// readService is the run service of the commands that only read the store: st opened
// read-only, messages in sf's language.
func readService(st runs.Store, sf *storeFlag) *service.Service {
	return service.New(service.Options{Store: st, Lang: sf.lang, ShowPath: displayPath})
}

// displayPath shows a stored (absolute) DAG file relative to the current directory when it
// is below it.
func displayPath(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	rel, err := filepath.Rel(wd, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return rel
}

func newStoreCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Manage the run store",
	}
	cmd.AddCommand(newStoreMigrateCmd(e))
	return cmd
}

func newStoreMigrateCmd(e *env) *cobra.Command {
	var sf storeFlag
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Bring the run store's schema up to date (creating the store when missing)",
		Long: `Bring the run store's schema up to date, creating the store when missing. seam run, seam
mcp and seam serve do this on first use unless --no-migrate; run it once, on purpose, when
several hosts or versions of seam share a PostgreSQL store.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			loc := sf.resolve(e)
			from, to, err := runs.MigrateWith(cmd.Context(), loc, runs.Options{Lang: l})
			if err != nil {
				return usage(err)
			}
			if from == to {
				fmt.Fprint(e.stdout, i18n.Sprintf(l, "store %s is up to date (schema version %d)\n", runs.Redact(loc), to))
				return nil
			}
			fmt.Fprint(e.stdout, i18n.Sprintf(l, "store %s: schema version %d → %d\n", runs.Redact(loc), from, to))
			return nil
		},
	}
	sf.add(cmd)
	return cmd
}
