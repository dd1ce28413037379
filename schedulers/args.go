package schedulers

import (
	"fmt"
	"strconv"
)

// Args declares a scheduler's parameters once, each bound to a field of
// the scheduler's options struct, as package flag binds flags to
// variables (and the Kubernetes scheduler its plugin arguments to typed
// structs, types_pluginargs.go): the same calls give the declaration
// (Spec.Params: names, kinds, defaults, choices, bounds, docs) and decode
// resolved Params into the struct, so a parameter is named in one place.
// Typed builds both from one binding function.
type Args struct {
	params []Param
	sets   []func(string) error
}

// Arg is a declared parameter, for setting its bounds.
type Arg struct {
	a *Args
	i int
}

// Min sets the lowest value of a number parameter.
func (r Arg) Min(v int) Arg { r.a.params[r.i].Min = strconv.Itoa(v); return r }

// Max sets the highest value of a number parameter.
func (r Arg) Max(v int) Arg { r.a.params[r.i].Max = strconv.Itoa(v); return r }

func (a *Args) add(p Param, set func(string) error) Arg {
	a.params = append(a.params, p)
	a.sets = append(a.sets, set)
	return Arg{a, len(a.params) - 1}
}

// Bool declares a bool parameter bound to dst.
func (a *Args) Bool(dst *bool, name string, def bool, doc string) Arg {
	return a.add(Param{Name: name, Kind: "bool", Default: strconv.FormatBool(def), Doc: doc}, func(v string) (err error) {
		*dst, err = strconv.ParseBool(v)
		return err
	})
}

// Int declares an int parameter bound to dst.
func (a *Args) Int(dst *int, name string, def int, doc string) Arg {
	return a.add(Param{Name: name, Kind: "int", Default: strconv.Itoa(def), Doc: doc}, func(v string) (err error) {
		*dst, err = strconv.Atoi(v)
		return err
	})
}

// Float declares a float parameter bound to dst.
func (a *Args) Float(dst *float64, name string, def float64, doc string) Arg {
	return a.add(Param{Name: name, Kind: "float", Default: strconv.FormatFloat(def, 'g', -1, 64), Doc: doc}, func(v string) (err error) {
		*dst, err = strconv.ParseFloat(v, 64)
		return err
	})
}

// String declares a string parameter bound to dst; choices, when given,
// are its only values.
func (a *Args) String(dst *string, name, def string, choices []string, doc string) Arg {
	return a.add(Param{Name: name, Kind: "string", Default: def, Choices: choices, Doc: doc}, func(v string) error {
		*dst = v
		return nil
	})
}

// Choice declares a string parameter with choices whose value sets a bool:
// dst is true when the value is on (e.g. eviction = luf: LUF).
func (a *Args) Choice(dst *bool, on, name, def string, choices []string, doc string) Arg {
	return a.add(Param{Name: name, Kind: "string", Default: def, Choices: choices, Doc: doc}, func(v string) error {
		*dst = v == on
		return nil
	})
}

// Shared declares a parameter several schedulers share (BufferParam's
// kin: PriorityParam, BeladyUsesParam, ReadyAtParam), bound to dst, a
// *bool, *int, *float64 or *string of its kind.
func (a *Args) Shared(p Param, dst any) Arg {
	var set func(string) error
	switch d := dst.(type) {
	case *bool:
		set = func(v string) (err error) { *d, err = strconv.ParseBool(v); return err }
	case *int:
		set = func(v string) (err error) { *d, err = strconv.Atoi(v); return err }
	case *float64:
		set = func(v string) (err error) { *d, err = strconv.ParseFloat(v, 64); return err }
	case *string:
		set = func(v string) error { *d = v; return nil }
	default:
		panic(fmt.Sprintf("schedulers: Args.Shared(%s): a %T is not a parameter's field", p.Name, dst))
	}
	return a.add(p, set)
}

// SharedIs declares a shared string parameter whose value sets a bool:
// dst is true when the value is on.
func (a *Args) SharedIs(p Param, dst *bool, on string) Arg {
	return a.add(p, func(v string) error {
		*dst = v == on
		return nil
	})
}

// decode sets every bound field from p, a parameter missing from p taking
// its default; a value that does not parse as its kind is an error (it
// cannot come from Resolve, which checked it: the caller built p by hand).
func (a *Args) decode(p Params) error {
	for i, pp := range a.params {
		v, ok := p[pp.Name]
		if !ok {
			v = pp.Default
		}
		if err := a.sets[i](v); err != nil {
			return fmt.Errorf("parameter %s = %q: %v", pp.Name, v, err)
		}
	}
	return nil
}

// Typed builds a Spec's Params and New from one binding function: bind
// declares each parameter on the Args against a field of *T, build makes
// the scheduler from the decoded options.
func Typed[T any](bind func(*Args, *T), build func(T) (Scheduler, error)) ([]Param, func(Params) (Scheduler, error)) {
	var decl Args
	bind(&decl, new(T))
	newFn := func(p Params) (Scheduler, error) {
		var a Args
		var o T
		bind(&a, &o)
		if err := a.decode(p); err != nil {
			return nil, err
		}
		return build(o)
	}
	return decl.params, newFn
}
