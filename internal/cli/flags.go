package cli

import (
	"flag"
	"time"

	"github.com/newsdedup/newscrawl/config"
)

// durationValue is a duration flag read as the site file reads durations
// (config.ParseDuration): "5s", "1m", "1.5d" or bare seconds ("5").
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }

func (d *durationValue) Set(s string) error {
	v, err := config.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

// durationFlag defines a durationValue flag; usage should name its value
// in back quotes ("a `duration`").
func durationFlag(fs *flag.FlagSet, name string, value time.Duration, usage string) *time.Duration {
	d := value
	fs.Var((*durationValue)(&d), name, usage)
	return &d
}
