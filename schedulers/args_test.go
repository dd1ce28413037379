package schedulers

import (
	"strings"
	"testing"
)

type argsTest struct {
	On    bool
	N     int
	F     float64
	S     string
	LUF   bool
	Other string
}

func bindArgsTest(a *Args, o *argsTest) {
	a.Bool(&o.On, "on", true, "a bool")
	a.Int(&o.N, "n", 3, "an int").Min(0).Max(9)
	a.Float(&o.F, "f", 0.5, "a float")
	a.String(&o.S, "s", "x", []string{"x", "y"}, "a string")
	a.Choice(&o.LUF, "luf", "eviction", "luf", []string{"luf", "lru"}, "a choice")
	a.Shared(Param{Name: "other", Kind: "string", Default: "z"}, &o.Other)
}

// One binding gives the declaration and the decoding: names, kinds and
// canonical defaults; resolved values decoded into the fields; a value
// that does not parse is an error, not a zero.
func TestTyped(t *testing.T) {
	var got argsTest
	params, build := Typed(bindArgsTest, func(o argsTest) (Scheduler, error) { got = o; return nil, nil })
	var decl []string
	for _, p := range params {
		decl = append(decl, p.Name+":"+p.Kind+"="+p.Default+"["+p.Min+","+p.Max+"]")
	}
	if s := strings.Join(decl, " "); s != "on:bool=true[,] n:int=3[0,9] f:float=0.5[,] s:string=x[,] eviction:string=luf[,] other:string=z[,]" {
		t.Fatalf("declaration %s", s)
	}
	p, err := ResolveParams("t", params, map[string]string{"n": "7", "eviction": "lru", "s": "y"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := build(p); err != nil {
		t.Fatal(err)
	}
	if want := (argsTest{On: true, N: 7, F: 0.5, S: "y", LUF: false, Other: "z"}); got != want {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	if _, err := ResolveParams("t", params, map[string]string{"n": "10"}); err == nil {
		t.Error("n = 10 above its Max accepted")
	}
	if _, err := build(Params{"n": "seven"}); err == nil || !strings.Contains(err.Error(), `parameter n = "seven"`) {
		t.Errorf("an unparsable value: %v", err)
	}
	if _, err := build(Params{}); err != nil || got.N != 3 || !got.LUF {
		t.Errorf("defaults: %+v %v", got, err)
	}
}
