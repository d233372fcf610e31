package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

type Config struct {
	Name    string
	Port    int
	Verbose bool
}

var ErrMissingName = errors.New("missing name")

func parseArgs(args []string) (Config, error) {
	cfg := Config{Port: 8080}
	for _, arg := range args {
		switch {
		case strings.HasPrefix(arg, "--name="):
			cfg.Name = strings.TrimPrefix(arg, "--name=")
		case arg == "--verbose":
			cfg.Verbose = true
		default:
			return cfg, fmt.Errorf("unknown argument %q", arg)
		}
	}
	if cfg.Name == "" {
		return cfg, ErrMissingName
	}
	return cfg, nil
}

func greet(cfg Config) string {
	greeting := fmt.Sprintf("hello, %s", cfg.Name)
	if cfg.Verbose {
		greeting += fmt.Sprintf(" (port %d)", cfg.Port)
	}
	return greeting
}

func sum(values []int) int {
	total := 0
	for _, v := range values {
		total += v
	}
	return total
}

func average(values []int) float64 {
	if len(values) == 0 {
		return 0
	}
	return float64(sum(values)) / float64(len(values))
}

func main() {
	cfg, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(greet(cfg))
	fmt.Println(average([]int{1, 2, 3}))
}
