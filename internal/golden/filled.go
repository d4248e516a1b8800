// Package golden is test support for pinned formats: a filler that sets
// every field a value's JSON holds (Filled), the check that none was left
// empty (RequireFilled), and golden files compared or rewritten with
// -update (Compare).
package golden

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// A filler sets every stored field of a value to a distinct, non-zero value
// that depends only on the type's shape, so that the stored form of a fully
// populated value is the same on every run: a field added to a stored type
// shows up in its golden file by itself, and a renamed one changes it.
type filler struct {
	t    *testing.T
	n    int
	open openTypes
}

// openTypes are the struct types being filled or checked along one path: a
// type met again inside itself (a schema holding schemas) is left empty, or
// the value would never end.
type openTypes map[reflect.Type]bool

// recursive reports whether t, or the struct it points to or holds, is open.
func (o openTypes) recursive(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return o[t]
}

var (
	rawType  = reflect.TypeFor[json.RawMessage]()
	timeType = reflect.TypeFor[time.Time]()
	uuidType = reflect.TypeFor[uuid.UUID]()
)

// fillBase is the first instant a filler writes; each further time is a
// second later.
var fillBase = time.Date(2026, time.January, 2, 3, 4, 5, 0, time.UTC)

// Filled returns a T with every stored field set: deterministic, the
// same on every run.
func Filled[T any](t *testing.T) T {
	t.Helper()
	var v T
	f := &filler{t: t, open: openTypes{}}
	f.fill(reflect.ValueOf(&v).Elem(), reflect.TypeFor[T]().Name())
	RequireFilled(t, v)
	return v
}

// next is the next number of the sequence, from 1.
func (f *filler) next() int {
	f.n++
	return f.n
}

// fill sets v, reached at path, and everything it holds.
func (f *filler) fill(v reflect.Value, path string) {
	if f.open.recursive(v.Type()) {
		return
	}
	switch v.Type() {
	case rawType:
		v.SetBytes([]byte(fmt.Sprintf(`{"raw":%d}`, f.next())))
		return
	case timeType:
		v.Set(reflect.ValueOf(fillBase.Add(time.Duration(f.next()) * time.Second)))
		return
	case uuidType:
		v.Set(reflect.ValueOf(uuid.NewSHA1(uuid.NameSpaceURL, []byte(fmt.Sprintf("%s/%d", path, f.next())))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("%s-%d", fieldName(path), f.next()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.next()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.next()))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), path)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		f.fill(v.Index(0), path+"[0]")
	case reflect.Array:
		for i := range v.Len() {
			f.fill(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		key := reflect.New(v.Type().Key()).Elem()
		f.fill(key, path+".key")
		elem := reflect.New(v.Type().Elem()).Elem()
		f.fill(elem, path+".value")
		v.SetMapIndex(key, elem)
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("%s-%d", fieldName(path), f.next())))
	case reflect.Struct:
		f.open[v.Type()] = true
		defer delete(f.open, v.Type())
		for i := range v.NumField() {
			if sf := v.Type().Field(i); stored(sf) {
				f.fill(v.Field(i), path+"."+sf.Name)
			}
		}
	default:
		f.t.Fatalf("filler: %s has kind %s, which no stored type uses", path, v.Kind())
	}
}

// fieldName is the last name of path, lowercased: the prefix of a filled
// string.
func fieldName(path string) string {
	path = strings.TrimSuffix(path, "[0]")
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		path = path[i+1:]
	}
	return strings.ToLower(path)
}

// stored reports whether encoding/json writes the field: exported and not
// tagged "-".
func stored(sf reflect.StructField) bool {
	return sf.IsExported() && sf.Tag.Get("json") != "-"
}

// RequireFilled fails for every stored field of v left at its zero value,
// every empty slice or map, and every nil pointer, so that a value meant to
// be fully populated cannot silently leave a field out of its golden file.
func RequireFilled(t *testing.T, v any) {
	t.Helper()
	require.Empty(t, Empty(v), "stored fields left empty: set them so that the golden file holds them")
}

// Empty lists the paths of the stored fields of v left empty (zero, an
// empty slice or map, a nil pointer).
func Empty(v any) []string {
	var empty []string
	walkZero(reflect.ValueOf(v), reflect.TypeOf(v).String(), openTypes{}, &empty)
	return empty
}

func walkZero(v reflect.Value, path string, open openTypes, empty *[]string) {
	if open.recursive(v.Type()) || fieldless(v.Type()) {
		return
	}
	if v.IsZero() {
		*empty = append(*empty, path)
		return
	}
	switch v.Type() {
	case rawType, timeType, uuidType:
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		walkZero(v.Elem(), path, open, empty)
	case reflect.Slice, reflect.Array:
		if v.Len() == 0 {
			*empty = append(*empty, path)
		}
		for i := range v.Len() {
			walkZero(v.Index(i), fmt.Sprintf("%s[%d]", path, i), open, empty)
		}
	case reflect.Map:
		if v.Len() == 0 {
			*empty = append(*empty, path)
		}
		for it := v.MapRange(); it.Next(); {
			walkZero(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), open, empty)
		}
	case reflect.Struct:
		open[v.Type()] = true
		defer delete(open, v.Type())
		for i := range v.NumField() {
			if sf := v.Type().Field(i); stored(sf) {
				walkZero(v.Field(i), path+"."+sf.Name, open, empty)
			}
		}
	}
}

// fieldless reports whether t is a struct with no stored field, a marker
// such as an empty object: it has nothing to set.
func fieldless(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if stored(t.Field(i)) {
			return false
		}
	}
	return true
}
