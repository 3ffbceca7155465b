package contract

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// Drafts are the $schema URIs seam reads, one per draft (http or https, with or without an
// empty fragment, all name the same): validation and the subset checker read each resource
// by its own. Any other $schema is refused at load, where jsonschema would try to fetch it as
// a metaschema.
func Drafts() []string {
	return []string{
		"http://json-schema.org/draft-04/schema#",
		"http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	}
}

// knownDraft reports whether a $schema value names one of Drafts (or json-schema.org/schema,
// which jsonschema reads as the latest).
func knownDraft(u string) bool {
	u = strings.TrimSuffix(u, "#")
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else {
		u, _ = strings.CutPrefix(u, "https://")
	}
	if u == "json-schema.org/schema" {
		return true
	}
	return slices.ContainsFunc(Drafts(), func(d string) bool {
		_, rest, _ := strings.Cut(strings.TrimSuffix(d, "#"), "://")
		return rest == u
	})
}

// checkDrafts refuses the first $schema of doc (in sorted order, so the same one every run)
// that names no draft seam reads.
func checkDrafts(doc any) *SchemaError {
	var walk func(v any, ptr string) *SchemaError
	walk = func(v any, ptr string) *SchemaError {
		switch v := v.(type) {
		case map[string]any:
			if u, ok := v["$schema"].(string); ok && !knownDraft(u) {
				return &SchemaError{Pointer: ptr + "/$schema", Err: draftError{i18n.M("$schema %q names no draft seam reads; declare one of %s",
					u, strings.Join(Drafts(), ", "))}}
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				switch k {
				case "enum", "const", "default", "examples":
					continue // data, not schemas
				}
				if err := walk(v[k], ptr+"/"+EscapeToken(k)); err != nil {
					return err
				}
			}
		case []any:
			for i, x := range v {
				if err := walk(x, fmt.Sprintf("%s/%d", ptr, i)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(doc, "")
}

// ErrUnknownDraft is matched (errors.Is) by the error for a $schema that names no draft
// seam reads.
var ErrUnknownDraft = errors.New("unknown $schema")

// draftError refuses a $schema: its message in languages, and ErrUnknownDraft.
type draftError struct{ i18n.Message }

func (e draftError) Is(target error) bool { return target == ErrUnknownDraft }
