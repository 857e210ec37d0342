package jsonw

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

func TestStringEscaping(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`plain`, `"plain"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"line\nnext\ttab\r\b\f", `"line\nnext\ttab\r\b\f"`},
		{"\x01\x1f", `"\u0001\u001f"`},
		{`group(x > 0) && y < 1 / z`, `"group(x > 0) && y < 1 / z"`},
		{"\u2028é", "\"\u2028é\""},
	} {
		got := string(String(nil, tc.in))
		if got != tc.want {
			t.Errorf("String(%q) = %s, want %s", tc.in, got, tc.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != tc.in {
			t.Errorf("round trip of %q: %q, %v", tc.in, back, err)
		}
	}
}

func TestStringMapSorted(t *testing.T) {
	got := string(StringMap(nil, map[string]string{"b": "2", "a": "1", "url": "x"}))
	if want := `{"a":"1","b":"2","url":"x"}`; got != want {
		t.Errorf("StringMap = %s, want %s", got, want)
	}
	if got := string(StringMap(nil, nil)); got != `{}` {
		t.Errorf("empty map = %s", got)
	}
}

func TestIntMatchesStrconv(t *testing.T) {
	check := func(n int) {
		if got, want := string(Int([]byte("x"), n)), "x"+strconv.Itoa(n); got != want {
			t.Fatalf("Int(%d) = %q, want %q", n, got, want)
		}
	}
	for n := -1000; n <= 100000; n++ {
		check(n)
	}
	for _, n := range []int{math.MaxInt, math.MinInt, 1 << 40, -(1 << 40)} {
		check(n)
	}
}
