package main

func init() {
	invalidFlags["plan --id"] = badFlag{bad: []string{""}}
	invalidFlags["plan --wariness"] = badFlag{bad: []string{"", "high", "1e-1"}}
}
