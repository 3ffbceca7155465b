package mcp

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// cut is data with a minimal form, for respond's tests.
type cut struct{ all []int }

func (c cut) minimal() any { return first(c.all, minimalErrors) }

func TestMCPRespond(t *testing.T) {
	data := cut{all: []int{1, 2, 3, 4, 5}}
	tests := []struct {
		name    string
		raw     bool
		err     error
		want    Envelope
		isError bool
	}{
		{"minimal data", false, nil, Envelope{Success: true, Message: "m", Data: []int{1, 2, 3}}, false},
		{"raw data", true, nil, Envelope{Success: true, Message: "m", Data: data}, false},
		{"tool error, minimal details", false, fail(CodeInvalidDAG, data, "x does not load: %d errors", 5),
			Envelope{Message: "x does not load: 5 errors", Error: &ErrorInfo{Code: CodeInvalidDAG, Details: []int{1, 2, 3}}}, true},
		{"tool error, raw details", true, fail(CodeInvalidDAG, data, "x"),
			Envelope{Message: "x", Error: &ErrorInfo{Code: CodeInvalidDAG, Details: data}}, true},
		{"wrapped tool error", false, fmt.Errorf("ctx: %w", fail(CodeNotFound, nil, "gone")),
			Envelope{Message: "gone", Error: &ErrorInfo{Code: CodeNotFound}}, true},
		{"other error", false, errors.New("disk full"),
			Envelope{Message: "disk full", Error: &ErrorInfo{Code: CodeInternal}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, env := respond("en", tc.raw, msgf("m"), data, tc.err)
			if res.IsError != tc.isError {
				t.Errorf("isError %v, want %v", res.IsError, tc.isError)
			}
			if !reflect.DeepEqual(env, tc.want) {
				t.Errorf("envelope %+v, want %+v", env, tc.want)
			}
		})
	}
}
