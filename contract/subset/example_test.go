package subset_test

import (
	"encoding/json"
	"fmt"

	"github.com/seam-dag/seam/contract"
	"github.com/seam-dag/seam/contract/subset"
)

// CheckNamed decides whether every value a producer's schema allows is one the consumer's
// accepts. When it is not, the answer says where and why, with a witness: a value the
// producer allows and the consumer rejects.
func ExampleCheckNamed() {
	c, err := contract.NewCompiler(contract.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	schema := func(name, src string) *contract.Schema {
		var v any
		if err := json.Unmarshal([]byte(src), &v); err != nil {
			panic(err)
		}
		s, err := c.Inline(name, v)
		if err != nil {
			panic(err)
		}
		return s
	}
	producer := schema("producer", `{"type": "object", "required": ["count"], "properties": {"count": {"type": "integer", "minimum": 0}}}`)
	consumer := schema("consumer", `{"type": "object", "required": ["count", "label"], "properties": {"count": {"type": "number"}}}`)
	narrow := schema("narrow", `{"type": "object", "required": ["count"], "properties": {"count": {"type": "integer", "minimum": 0, "maximum": 10}}}`)

	r := subset.CheckNamed(narrow, producer, "narrow", "producer")
	fmt.Println(r.Verdict)
	r = subset.CheckNamed(producer, consumer, "producer", "consumer")
	w, _ := json.Marshal(r.Witness)
	fmt.Printf("%s at %q (%s): %s\nwitness: %s\n", r.Verdict, r.Path, r.Rule, r.Reason, w)
	// Output:
	// compatible
	// incompatible at "/label" (required): consumer requires 'label' but producer does not guarantee it
	// witness: {"count":0}
}
