package contract

import (
	"errors"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

// TestDrafts: every draft seam reads compiles under each way of writing its $schema; any
// other $schema, at the root or in an embedded resource, is refused at load with the place
// and the drafts seam reads, in both languages.
func TestDrafts(t *testing.T) {
	supported := strings.Join(Drafts(), ", ")
	cases := []struct {
		name, schema string
		pointer      string // "" when the schema compiles
		value        string
	}{
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"string"}`, "", ""},
		{"draft-06 https", `{"$schema":"https://json-schema.org/draft-06/schema","type":"string"}`, "", ""},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`, "", ""},
		{"2019-09 with fragment", `{"$schema":"https://json-schema.org/draft/2019-09/schema#","type":"string"}`, "", ""},
		{"2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}`, "", ""},
		{"latest", `{"$schema":"https://json-schema.org/schema","type":"string"}`, "", ""},
		{"in data", `{"enum":[{"$schema":"http://example.com/mine"}]}`, "", ""},
		{"draft-03", `{"$schema":"http://json-schema.org/draft-03/schema#","type":"string"}`, "/$schema", "http://json-schema.org/draft-03/schema#"},
		{"own metaschema", `{"$schema":"https://example.com/meta","type":"string"}`, "/$schema", "https://example.com/meta"},
		{"embedded", `{"$defs":{"x":{"$id":"http://example.com/x","$schema":"http://example.com/x-meta"}}}`, "/$defs/x/$schema", "http://example.com/x-meta"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCompiler(Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Inline("s.json", parse(t, tc.schema))
			if tc.pointer == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *SchemaError
			if !errors.As(err, &se) || !errors.Is(err, ErrUnknownDraft) || errors.Is(err, ErrRemoteRef) {
				t.Fatalf("err %v, want a SchemaError of ErrUnknownDraft", err)
			}
			want := `schema s.json at ` + tc.pointer + `: $schema "` + tc.value + `" names no draft seam reads; declare one of ` + supported
			if err.Error() != want {
				t.Errorf("err\n %s\nwant\n %s", err, want)
			}
			m, ok := se.Err.(interface{ In(i18n.Lang) string })
			if !ok {
				t.Fatalf("Err is %T, want a message in languages", se.Err)
			}
			if ja := m.In(i18n.Japanese); !strings.Contains(ja, tc.value) || ja == m.In(i18n.English) {
				t.Errorf("Japanese: %s", ja)
			}
		})
	}
}
