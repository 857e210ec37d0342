package model

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Head returns the channel head: the single entry that no replaces or
// skips of the channel names (skipRange adds no incoming edge). Zero or
// several heads are errors, worded as operator-registry's Channel.Head.
func (c *Channel) Head() (*Entry, error) {
	return c.head, c.headErr
}

// channelHead is operator-registry's Channel.Head over entries.
func channelHead(entries []*Entry) (*Entry, error) {
	incoming := make(map[string]struct{}, len(entries))
	for _, e := range entries {
		if e.Replaces != "" {
			incoming[e.Replaces] = struct{}{}
		}
		for _, s := range e.Skips {
			incoming[s] = struct{}{}
		}
	}
	var heads []*Entry
	for _, e := range entries {
		if _, ok := incoming[e.Name]; !ok {
			heads = append(heads, e)
		}
	}
	switch len(heads) {
	case 0:
		return nil, errors.New("no channel head found in graph")
	case 1:
		return heads[0], nil
	}
	names := make([]string, len(heads))
	for i, h := range heads {
		names[i] = h.Name
	}
	sort.Strings(names)
	return nil, fmt.Errorf("multiple channel heads found in graph: %s", strings.Join(names, ", "))
}

// validateReplacesChain is operator-registry's Channel.validateReplacesChain
// (operator-registry#1750, 2025):
//  1. there is exactly one head;
//  2. walking replaces from the head, stopping as soon as the next
//     replaces target is skipped by any entry of the channel, every
//     entry is on the walk or skipped by some entry (else "stranded");
//  3. the walk has no cycle;
//  4. the tail may replace a name that is not in the channel.
func validateReplacesChain(entries []*Entry, byName map[string]*Entry) error {
	head, err := channelHead(entries)
	if err != nil {
		return err
	}
	skipped := map[string]struct{}{}
	for _, e := range entries {
		for _, s := range e.Skips {
			skipped[s] = struct{}{}
		}
	}
	chain := []string{head.Name}
	onChain := map[string]int{head.Name: 0}
	for cur := head; cur != nil; {
		if _, ok := skipped[cur.Replaces]; ok {
			break
		}
		if i, seen := onChain[cur.Replaces]; seen {
			cycle := append(chain[i:len(chain):len(chain)], cur.Replaces)
			return fmt.Errorf("detected cycle in replaces chain of upgrade graph: %s", strings.Join(cycle, " -> "))
		}
		onChain[cur.Replaces] = len(chain)
		chain = append(chain, cur.Replaces)
		cur = byName[cur.Replaces]
	}
	var stranded []string
	for _, e := range entries {
		_, on := onChain[e.Name]
		_, sk := skipped[e.Name]
		if !on && !sk {
			stranded = append(stranded, e.Name)
		}
	}
	if len(stranded) > 0 {
		sort.Strings(stranded)
		stranded = compactStrings(stranded)
		return fmt.Errorf("channel contains one or more stranded bundles: %s", strings.Join(stranded, ", "))
	}
	return nil
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// SortChannelV0 is OLM v0's sortChannel (operator-lifecycle-manager
// pkg/controller/registry/resolver/resolver.go): it orders the entries of
// one channel head first along replaces. Only replaces and skips whose
// target is among entries count; an entry with no in-channel replacer is
// a head candidate; every head candidate's chain is walked, and more than
// one chain is an error. Entries skipped by an entry of the list are left
// out of the chain, but the walk continues through them; entries not on
// the chain from the head are dropped. pkg and channel only word errors.
func SortChannelV0(pkg, channel string, entries []*Entry) ([]*Entry, error) {
	if len(entries) == 0 {
		return entries, nil
	}
	lookup := make(map[string]*Entry, len(entries))
	for _, e := range entries {
		lookup[e.Name] = e
	}
	replacedBy := make(map[*Entry]bool, len(entries))
	replaces := make(map[*Entry]*Entry, len(entries))
	skipped := map[string]bool{}
	for _, e := range entries {
		if e.Replaces != "" {
			if r, ok := lookup[e.Replaces]; ok {
				replacedBy[r] = true
				replaces[e] = r
			}
		}
		for _, s := range e.Skips {
			if r, ok := lookup[s]; ok {
				replacedBy[r] = true
				skipped[s] = true
			}
		}
	}
	var heads []*Entry
	for _, e := range entries {
		if !replacedBy[e] {
			heads = append(heads, e)
		}
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("no channel heads (entries not replaced by another entry) found in channel %q of package %q", channel, pkg)
	}
	var chains [][]*Entry
	for _, head := range heads {
		var chain []*Entry
		visited := map[*Entry]bool{}
		cur := head
		for {
			visited[cur] = true
			if !skipped[cur.Name] {
				chain = append(chain, cur)
			}
			next, ok := replaces[cur]
			if !ok {
				break
			}
			if visited[next] {
				return nil, fmt.Errorf("a cycle exists in the chain of replacement beginning with %q in channel %q of package %q", head.Name, channel, pkg)
			}
			cur = next
		}
		chains = append(chains, chain)
	}
	if len(chains) > 1 {
		names := make([]string, len(chains))
		for i, chain := range chains {
			switch len(chain) {
			case 0:
				names[i] = "[]"
			case 1:
				names[i] = chain[0].Name
			default:
				names[i] = fmt.Sprintf("%s...%s", chain[0].Name, chain[len(chain)-1].Name)
			}
		}
		return nil, fmt.Errorf("a unique replacement chain within a channel is required to determine the relative order between channel entries, but %d replacement chains were found in channel %q of package %q: %s",
			len(names), channel, pkg, strings.Join(names, ", "))
	}
	return chains[0], nil
}
