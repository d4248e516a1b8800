package mcpserve

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShallowCopyKeepsEveryField: the modern form of a design shares every
// field of its legacy form but the modern side's own, so a field added to
// compiled cannot be left behind in one era (an upstream once was).
func TestShallowCopyKeepsEveryField(t *testing.T) {
	own := map[string]bool{"modern": true, "discover": true, "readHints": true}
	c := &compiled{}
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if own[v.Type().Field(i).Name] {
			continue
		}
		// Every field set to a value that is not its zero value.
		switch f.Kind() {
		case reflect.Pointer:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().Set(reflect.New(f.Type().Elem()))
		case reflect.Map:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().Set(reflect.MakeMap(f.Type()))
		case reflect.Slice:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.String:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetString("x")
		case reflect.Bool:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetBool(true)
		case reflect.Int, reflect.Int64:
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().SetInt(1)
		case reflect.Array: // uuid.UUID
			reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem().Index(0).SetUint(1)
		default:
			t.Fatalf("field %s of kind %s: teach this test to set it", v.Type().Field(i).Name, f.Kind())
		}
	}
	m := reflect.ValueOf(c.shallowCopy()).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if own[name] {
			continue
		}
		require.False(t, m.Field(i).IsZero(), "shallowCopy leaves out %s", name)
	}
}
