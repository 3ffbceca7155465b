package service

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/internal/i18n"
)

// Parameters as front ends take them from people: seam run's -p key=value and --params-file.

// ParseParam parses one -p argument, key=value, split at the first '='. A value that parses
// as JSON keeps its type (-p n=3, -p tags='["a"]'); anything else is the string itself, so
// -p name=world needs no quoting.
func ParseParam(lang i18n.Lang, kv string) (string, any, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", nil, i18n.Errorf(lang, "-p %q: want key=value", kv)
	}
	if j, err := contract.ParseJSON([]byte(v)); err == nil {
		return k, j, nil
	}
	return k, v, nil
}

// ParseParamsFile parses an object of parameters from the content b of the params file
// path: YAML when its name ends in .yaml or .yml, else JSON (stdin, "-", included).
func ParseParamsFile(lang i18n.Lang, path string, b []byte) (map[string]any, error) {
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
