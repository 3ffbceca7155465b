package dag

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/seam-dag/seam/contract"
)

// BenchmarkLoadSharedContract loads 10 DAG files that share one contract, GitHub's webhook
// schema of dags/github-pull-request.yaml (630 KB, reached by a $ref), as a process such as
// seam serve or the contract gate does: each load compiling the files it names ("each
// load"), and the loads sharing a contract.FileCache ("cached"), the first compiling them.
//
//	go test -run '^$' -bench LoadSharedContract -benchmem ./dag/
func BenchmarkLoadSharedContract(b *testing.B) {
	const n = 10
	src, err := os.ReadFile("../dags/github-pull-request.yaml")
	if err != nil {
		b.Fatal(err)
	}
	types := allTypes()
	for _, bc := range []struct {
		name   string
		shared bool
	}{{"each load", false}, {"cached", true}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				opts := LoadOptions{Types: types, TypeSchemas: &TypeSchemas{}}
				if bc.shared {
					opts.Files = &contract.FileCache{}
				}
				for i := range n {
					// Files beside the example, so that its relative paths resolve.
					if _, err := LoadBytes(context.Background(), fmt.Sprintf("../dags/pr-%d.yaml", i), src, opts); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
