package version

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"4.2.0", "4.2.0", true},
		{" 1.1.0\n", "1.1.0", true},
		{"4.2.10-s390x+s390x", "4.2.10-s390x+s390x", true},
		{"4.12.0+multi", "4.12.0+multi", true},
		{"4.0.0-0.okd-0+amd64", "4.0.0-0.okd-0+amd64", true},
		{"1.2", "", false},
		{"v1.2.0", "", false},
		{"", "", false},
		{"01.2.3", "", false},
		{"1.2.3-", "", false},
		{"1.2.3+", "", false},
	} {
		v, err := Parse(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("Parse(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && v.String() != tc.want {
			t.Errorf("Parse(%q) = %q, want %q", tc.in, v, tc.want)
		}
	}
}

func TestEqualIgnoresBuild(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		eq   bool
	}{
		{"4.2.0+amd64", "4.2.0+s390x", true},
		{"4.2.0+amd64", "4.2.0", true},
		{"4.2.10-s390x", "4.2.10", false},
		{"4.2.0-rc.1", "4.2.0-rc.1+x", true},
	} {
		if got := Equal(MustParse(tc.a), MustParse(tc.b)); got != tc.eq {
			t.Errorf("Equal(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.eq)
		}
	}
}

func TestOrder(t *testing.T) {
	ordered := []string{"4.1.0-rc.2", "4.1.0-rc.10", "4.1.0", "4.1.0+amd64", "4.1.0+s390x", "4.1.1", "4.10.0"}
	for i := 1; i < len(ordered); i++ {
		a, b := MustParse(ordered[i-1]), MustParse(ordered[i])
		if !Less(a, b) || Less(b, a) {
			t.Errorf("want %s < %s", a, b)
		}
	}
}

func TestBuildRewrite(t *testing.T) {
	v := MustParse("4.2.10-s390x+s390x")
	if got := v.WithBuild("amd64").String(); got != "4.2.10-s390x+amd64" {
		t.Errorf("WithBuild = %s", got)
	}
	if got := v.WithoutBuildIdentifier("s390x").String(); got != "4.2.10-s390x" {
		t.Errorf("WithoutBuildIdentifier = %s", got)
	}
	if got := MustParse("1.0.0+a.amd64.b").WithoutBuildIdentifier("amd64").String(); got != "1.0.0+a.b" {
		t.Errorf("WithoutBuildIdentifier keeps others: %s", got)
	}
	if got := MustParse("4.7.4+amd64").Key(); got != "4.7.4" {
		t.Errorf("Key = %s", got)
	}
}
