package nodes

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/seam-dag/seam/internal/i18n"
)

// DecodeConfig reads with, a node's configuration, into the struct cfg points to: each field
// reads the key its `config` tag names, and `config:"name,required"` refuses a with without
// that key. A string field takes a string; a field of type any takes any value, which the
// type reads on. A key no field names is refused, naming the nearest known one. Errors are
// *ConfigError at the member's path, said in the language of whoever prints them. A value
// holding a reference, as a Checker sees it, is a string.
func DecodeConfig(with map[string]any, cfg any) error {
	v := reflect.ValueOf(cfg).Elem()
	type member struct {
		key      string
		required bool
		field    reflect.Value
	}
	members := make([]member, 0, v.NumField())
	known := make([]string, 0, v.NumField())
	for i := range v.NumField() {
		tag, ok := v.Type().Field(i).Tag.Lookup("config")
		if !ok {
			continue
		}
		key, opt, _ := strings.Cut(tag, ",")
		members = append(members, member{key: key, required: opt == "required", field: v.Field(i)})
		known = append(known, key)
	}
	if err := checkKeys(with, known...); err != nil {
		return err
	}
	for _, m := range members {
		x, ok := with[m.key]
		at := "/" + pointerEscape(m.key)
		switch {
		case !ok && m.required:
			return configErr(at, i18n.M("required"))
		case !ok || x == nil && m.field.Kind() == reflect.Interface:
		case m.field.Kind() == reflect.Interface:
			m.field.Set(reflect.ValueOf(x))
		case m.field.Kind() == reflect.String:
			s, isString := x.(string)
			if !isString {
				return configErr(at, i18n.M("must be a string, got %s", jsonType(x)))
			}
			m.field.SetString(s)
		default:
			panic(fmt.Sprintf("nodes: DecodeConfig: %s's field for %q is a %s", v.Type(), m.key, m.field.Type()))
		}
	}
	return nil
}
