package lint

import (
	"fmt"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// TestSchemaPositions: a keyword's place is found by its pointer in a JSON file and inside
// an inline YAML schema, through escaped names and array items.
func TestSchemaPositions(t *testing.T) {
	const js = "{\n  \"a/b\": {\"items\": [\n    {}, {\"const\": 1}]},\n  \"x\": 1\n}\n"
	const yml = "nodes:\n  n:\n    contract:\n      input:\n        allOf:\n          - {}\n          - properties: {\"é\": {const: 1}}\n"
	cases := []struct {
		name, ptr, want string
		yaml            bool
	}{
		{"escaped name", "/a~1b", "2:3", false},
		{"array item", "/a~1b/items/1", "3:9", false},
		{"keyword in an item", "/a~1b/items/1/const", "3:10", false},
		{"last member", "/x", "4:3", false},
		{"missing", "/y", "none", false},
		{"yaml keyword", "/allOf/1/properties/é/const", "7:32", true},
		{"yaml missing", "/allOf/2", "none", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var line, col int
			var ok bool
			if tc.yaml {
				line, col, ok = yamlPos([]byte(yml), 5, 9, contract.PointerTokens(tc.ptr))
			} else {
				line, col, ok = jsonPos([]byte(js), contract.PointerTokens(tc.ptr))
			}
			got := "none"
			if ok {
				got = fmt.Sprintf("%d:%d", line, col)
			}
			if got != tc.want {
				t.Errorf("%s: %s, want %s", tc.ptr, got, tc.want)
			}
		})
	}
}
