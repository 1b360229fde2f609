package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The parsers below read the values people type, in the commands' flags
// and in the dashboard's forms alike: one parser for each kind of value,
// each refusing with a rule that names the field.

// decimal is the only form of number gwdash reads from text, typed or
// sent: no hexadecimal ("0x1p-2"), no "Inf" or "NaN", no underscores.
var decimal = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// ParseNumber reads a decimal number ("0.25", "-3", "1e-6"): what
// strconv.ParseFloat also takes but a person or a server does not mean
// (hexadecimal floats, infinities, NaN) and what is out of range are
// refused. -0 reads as 0.
func ParseNumber(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if len(t) > 400 || !decimal.MatchString(t) {
		return 0, errors.New("not a decimal number")
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, errors.New("out of range")
	}
	return v + 0, nil // -0 + 0 is 0
}

// ParseSamplingRate reads "0.25" or "25%" and checks 0.0001 to 1.
func ParseSamplingRate(s string) (float64, error) {
	raw := strings.TrimSpace(s)
	pct := strings.HasSuffix(raw, "%")
	v, err := ParseNumber(strings.TrimSuffix(raw, "%"))
	if err != nil {
		return 0, &ValidationError{Field: "sampling_rate", Rule: "must be a number from 0.0001 to 1 (or 0.01% to 100%)"}
	}
	if pct {
		v /= 100
	}
	if err := ValidateSamplingRate(v); err != nil {
		return 0, err
	}
	return v, nil
}

// SplitList splits a comma-separated list, trimming spaces and dropping
// empty items.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseRegions reads "eu,us" and checks the regions of an update.
func ParseRegions(s string) ([]string, error) {
	rs := SplitList(strings.ToLower(s))
	if err := ValidateRegions(rs); err != nil {
		return nil, err
	}
	return rs, nil
}

// ParseKeyHashes reads a comma-separated list of API key hashes (at least
// one).
func ParseKeyHashes(s string) ([]string, error) {
	hs := SplitList(s)
	if len(hs) == 0 {
		return nil, &ValidationError{Field: "api_key_hashes", Rule: "needs at least 1 hash (or all keys)"}
	}
	return hs, nil
}

// ParseOnOff reads on/off, true/false, yes/no.
func ParseOnOff(field, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "true", "yes", "1":
		return true, nil
	case "off", "false", "no", "0":
		return false, nil
	}
	return false, &ValidationError{Field: field, Rule: "must be on or off"}
}

// ParseMetadata reads key=value pairs ("team=infra" items, or one string
// "team=infra, env=prod") and checks the contract's limits.
func ParseMetadata(items []string) (map[string]string, error) {
	md := map[string]string{}
	for _, item := range items {
		for _, kv := range strings.Split(item, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, &ValidationError{Field: "metadata", Rule: fmt.Sprintf("%q is not key=value", kv)}
			}
			md[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if err := ValidateMetadata(md); err != nil {
		return nil, err
	}
	return md, nil
}

// ParseMemberValue reads a config member typed as text: a string member
// (like the one the server has, or a new one) stays a string; a member
// whose current value is not a string (headers, numbers) is read as JSON.
func ParseMemberValue(member, raw string, current any) (any, error) {
	if current == nil {
		if t := strings.TrimSpace(raw); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
			var v any
			if err := json.Unmarshal([]byte(t), &v); err != nil {
				return nil, &ValidationError{Field: "config." + member, Rule: "must be valid JSON"}
			}
			return v, nil
		}
		return raw, nil
	}
	if _, isString := current.(string); isString {
		return raw, nil
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil, &ValidationError{Field: "config." + member, Rule: "must be valid JSON (like its current value)"}
	}
	return v, nil
}

// ParseAssignment reads "member=value".
func ParseAssignment(field, kv string) (string, string, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", "", &ValidationError{Field: field, Rule: fmt.Sprintf("%q: want member=value", kv)}
	}
	return strings.TrimSpace(k), v, nil
}
