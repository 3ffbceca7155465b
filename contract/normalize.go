package contract

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Normalize returns a copy of v (a value decoded from JSON or YAML) in the form jsonschema
// expects: objects as map[string]any, arrays as []any, numbers as json.Number, and strings,
// booleans and nil as they are.
//
// YAML decoders produce int, int64, uint64, float64 and, for mappings with non-string keys,
// map[any]any: numbers become json.Number (a float keeps its shortest exact text, so YAML's
// 1.0 reads "1"), scalar keys are written as text. NaN, infinities and other Go types are
// errors, since JSON has no such values; so is a json.Number beyond MaxNumberDigits or
// MaxNumberExponent (a NumberError).
func Normalize(v any) (any, error) {
	n, ptr, err := normalize(v, "")
	if err != nil {
		return nil, fmt.Errorf("at %q: %w", ptr, err)
	}
	return n, nil
}

// normalize is Normalize, reporting where in v a bad value is.
func normalize(v any, ptr string) (any, string, error) {
	switch v := v.(type) {
	case nil, bool, string:
		return v, "", nil
	case json.Number:
		if e := checkNumber(string(v)); e != nil {
			e.Pointer = ptr
			return nil, ptr, e
		}
		return v, "", nil
	case float64:
		return float(v, 64, ptr)
	case float32:
		return float(float64(v), 32, ptr)
	case int:
		return json.Number(strconv.FormatInt(int64(v), 10)), "", nil
	case int8:
		return json.Number(strconv.FormatInt(int64(v), 10)), "", nil
	case int16:
		return json.Number(strconv.FormatInt(int64(v), 10)), "", nil
	case int32:
		return json.Number(strconv.FormatInt(int64(v), 10)), "", nil
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), "", nil
	case uint:
		return json.Number(strconv.FormatUint(uint64(v), 10)), "", nil
	case uint8:
		return json.Number(strconv.FormatUint(uint64(v), 10)), "", nil
	case uint16:
		return json.Number(strconv.FormatUint(uint64(v), 10)), "", nil
	case uint32:
		return json.Number(strconv.FormatUint(uint64(v), 10)), "", nil
	case uint64:
		return json.Number(strconv.FormatUint(v, 10)), "", nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			n, p, err := normalize(item, ptr+"/"+EscapeToken(k))
			if err != nil {
				return nil, p, err
			}
			out[k] = n
		}
		return out, "", nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			key, err := mapKey(k)
			if err != nil {
				return nil, ptr, err
			}
			n, p, err := normalize(item, ptr+"/"+EscapeToken(key))
			if err != nil {
				return nil, p, err
			}
			out[key] = n
		}
		return out, "", nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			n, p, err := normalize(item, fmt.Sprintf("%s/%d", ptr, i))
			if err != nil {
				return nil, p, err
			}
			out[i] = n
		}
		return out, "", nil
	case []string:
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out, "", nil
	}
	return nil, ptr, fmt.Errorf("%T is not a JSON value", v)
}

func float(f float64, bits int, ptr string) (any, string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, ptr, fmt.Errorf("%v is not a JSON number", f)
	}
	// Like encoding/json: plain digits unless the exponent is extreme.
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return json.Number(strconv.FormatFloat(f, format, -1, bits)), "", nil
}

// mapKey writes a YAML mapping's scalar key (200:, true:) as the text JSON would need.
func mapKey(k any) (string, error) {
	switch k := k.(type) {
	case string:
		return k, nil
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(k), nil
	}
	return "", fmt.Errorf("mapping key %v (%T) is not a string", k, k)
}
