package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/engine"
	"github.com/seam-dag/seam/internal/i18n"
)

func newRunCmd(e *env) *cobra.Command {
	var (
		params     []string
		paramsFile string
		asJSON     bool
		noLint     bool
		rs         runStore
		traceFile  string
	)
	cmd := &cobra.Command{
		Use:   "run FILE | run --resume RUN [FILE]",
		Short: "Run a DAG, validating every node's output against its contract",
		Long: `Run a DAG. Nodes start as soon as the nodes they depend on have finished, and every
output is validated against its node's contract before it is handed downstream.

Exit status: 0 when the run succeeded or warned, 1 when it failed or was canceled,
2 for a usage error, a DAG that does not load or that seam lint finds errors in (see
--no-lint), or params that break the params schema. SIGINT, SIGTERM and SIGHUP cancel the
run (its processes are killed and it is recorded canceled) and seam exits 130, 143 or 129;
a second signal stops seam at once.

Every run is recorded in the run store (see seam runs); --resume RUN continues a run that
did not succeed, reusing the outputs of the nodes that passed.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if rs.resume != "" {
				return cobra.MaximumNArgs(1)(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang(cmd, e)
			if err != nil {
				return err
			}
			rs.flag.lang = l
			p, err := runParams(e, l, paramsFile, params)
			if err != nil {
				return usage(err)
			}
			file := ""
			if rs.resume != "" {
				defer rs.close()
				if file, p, err = rs.prepareResume(cmd.Context(), e, args, paramsFile != "" || len(params) > 0); err != nil {
					return err
				}
			} else {
				file = args[0]
			}
			tel, err := setupTelemetry(cmd.Context(), e, traceFile)
			if err != nil {
				return err
			}
			defer tel.shutdown(cmd.Context())
			return runFile(tel.context(cmd.Context()), e, file, p, l, asJSON, noLint, &rs, tel)
		},
	}
	cmd.Flags().StringArrayVarP(&params, "param", "p", nil,
		"a parameter as key=value, repeatable; the value is JSON when it parses as JSON, else a string")
	cmd.Flags().StringVar(&paramsFile, "params-file", "", "a JSON or YAML file holding an object of parameters (- for JSON on stdin); -p overrides its keys")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run as one JSON document")
	cmd.Flags().BoolVar(&noLint, "no-lint", false, "run even when seam lint finds errors in the DAG")
	cmd.Flags().StringVar(&traceFile, "trace", "", "write the run's spans to `FILE` as JSON lines (OTEL_* variables: docs/telemetry.md)")
	rs.flag.add(cmd)
	rs.flag.addNoMigrate(cmd)
	cmd.Flags().BoolVar(&rs.none, "no-store", false, "do not record the run")
	cmd.Flags().StringVar(&rs.resume, "resume", "", "continue run `RUN`: re-run what did not pass, reuse what did")
	return cmd
}

func runFile(ctx context.Context, e *env, path string, params map[string]any, lang i18n.Lang, asJSON, noLint bool, rs *runStore, tel *runTelemetry) error {
	d, err := loadDAG(ctx, e, path, lang)
	if err != nil {
		return err
	}
	if !noLint {
		if err := tel.lint(ctx, d, func(ctx context.Context) error { return lintBeforeRun(ctx, e, d, params, lang) }); err != nil {
			return err
		}
	}
	opts := engine.RunOptions{Params: params, Lang: lang, Getenv: e.getenv, Logger: slog.New(slog.NewTextHandler(e.stderr, nil))}
	tel.apply(&opts, d)
	closeStore, err := rs.attach(ctx, e, d, &opts)
	if err != nil {
		return err
	}
	defer closeStore()
	var disp display
	if !asJSON {
		disp = newDisplay(e, e.stdout, d, lang)
		opts.Observer = disp
	}
	res, err := engine.Run(ctx, d, opts)
	if err != nil {
		var pe *engine.ParamsError
		if errors.As(err, &pe) {
			return usage(fmt.Errorf("%s: %w", path, pe))
		}
		return usage(err)
	}
	if asJSON {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("encode run %s: %w", res.ID, err)
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else {
		disp.finish(res)
	}
	if res.Error != "" {
		fmt.Fprint(e.stderr, i18n.Sprintf(lang, "seam: run %s: %s\n", res.ID, res.Error))
	}
	if res.Status == dag.RunFailed || res.Status == dag.RunCanceled {
		return failed()
	}
	return nil
}

// runParams merges the -p parameters over those of the params file.
func runParams(e *env, lang i18n.Lang, file string, kvs []string) (map[string]any, error) {
	params := map[string]any{}
	if file != "" {
		// A named pipe (/dev/stdin, <(…)) is refused as every file is: "-" reads stdin.
		b, err := e.readInput(file)
		if err != nil {
			return nil, i18n.Errorf(lang, "params file: %w", err)
		}
		if params, err = parseParamsFile(lang, file, b); err != nil {
			return nil, err
		}
	}
	for _, kv := range kvs {
		k, v, err := parseParam(lang, kv)
		if err != nil {
			return nil, err
		}
		params[k] = v
	}
	return params, nil
}

// parseParam parses one -p argument, key=value, split at the first '='. A value that parses
// as JSON keeps its type (-p n=3, -p tags='["a"]'); anything else is the string itself, so
// -p name=world needs no quoting.
func parseParam(lang i18n.Lang, kv string) (string, any, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", nil, i18n.Errorf(lang, "-p %q: want key=value", kv)
	}
	if j, err := contract.ParseJSON([]byte(v)); err == nil {
		return k, j, nil
	}
	return k, v, nil
}

// parseParamsFile parses an object of parameters from the content b of the params file
// path: YAML when its name ends in .yaml or .yml, else JSON (stdin, "-", included).
func parseParamsFile(lang i18n.Lang, path string, b []byte) (map[string]any, error) {
	var v any
	var err error
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		var y any
		if err = yaml.Unmarshal(b, &y); err == nil {
			v, err = contract.Normalize(y) // exact numbers, as JSON gives them
		}
	} else {
		v, err = contract.ParseJSON(b)
	}
	if err != nil {
		return nil, i18n.Errorf(lang, "params file %s: %w", path, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, i18n.Errorf(lang, "params file %s: want an object of parameters", path)
	}
	return m, nil
}
