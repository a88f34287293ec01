//! The pipe read again in the round after a slow-start exit
//! ([`SlowStartExitWindow::Pipe`](crate::SlowStartExitWindow::Pipe)).
//!
//! The exit keeps the pipe, the bottleneck's rate x BaseRTT, read from the
//! round whose Diff passed gamma. Gamma is a packet or two, so that round
//! ends as soon as a queue forms: on a long real path its ACKs reach the
//! bottleneck's rate only near its end, and the rates read from them fall
//! short. Through `vegas-link-emu` at 50 and 100 Mbit/s x 200 ms the exit's
//! readings were 0.92-0.94 of the link; congestion avoidance then makes up
//! the 7% one packet per round, about 130 rounds (26 s) at 100 Mbit/s
//! (measured: docs/constants.md, `vegas::VegasConfig::exit_recheck`).
//!
//! The round after the exit is acknowledged while the doubling's queue
//! drains, at the bottleneck's rate throughout, and its pipe reading is
//! right. So the exit arms this check; the first congestion-avoidance round
//! raises the window to that reading plus one packet when it is higher,
//! never above the paper's 7/8 cut. A reading more than an eighth above the
//! exit window ([`RECHECK_MAX_RAISE_DIVISOR`]) raises nothing: that is not
//! a misread pipe but another flow's queue draining (flows that start
//! together, a newcomer to a full link). A loss, a timeout, a path change
//! or a switch to competitive mode disarms the check, as does a round that
//! could not read the pipe (not in use).
//!
//! Linux `tcp_vegas.c` takes its exit window from one reading too ("cwnd =
//! (actual rate) * baseRTT"); this is the library's addition, off in paper
//! mode (`exit_recheck`).

/// The most a reading may exceed the exit window and still raise it: an
/// eighth. The exit's readings erred 6-8% low on real paths (the module
/// documentation). Flows that started together read each other's drain:
/// two Vegas flows at 20 Mbit/s x 40 ms, one raised by an eighth, kept a
/// standing queue that later read as a competitor's (measured:
/// docs/constants.md, `vegas::VegasConfig::exit_recheck`).
pub const RECHECK_MAX_RAISE_DIVISOR: usize = 8;

/// The check armed by a pipe exit: the exit window and the paper's cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipeRecheck {
    armed: Option<Armed>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Armed {
    exit_bytes: usize,
    cut_bytes: usize,
}

impl PipeRecheck {
    /// A slow-start exit kept `exit_bytes`, lower than the paper's cut
    /// `cut_bytes`: the next congestion-avoidance round may raise the
    /// window, to at most `cut_bytes`. An exit at the cut itself arms
    /// nothing (the paper's window).
    pub fn arm(&mut self, exit_bytes: usize, cut_bytes: usize) {
        self.armed = (exit_bytes < cut_bytes).then_some(Armed {
            exit_bytes,
            cut_bytes,
        });
    }

    /// Nothing to check any more (a reduction, a new path, competitive
    /// mode, a round not in use).
    pub fn disarm(&mut self) {
        self.armed = None;
    }

    /// Whether a congestion-avoidance round would be checked.
    pub fn armed(&self) -> bool {
        self.armed.is_some()
    }

    /// The first congestion-avoidance round after the exit, whose pipe
    /// reading is `pipe_bytes`: the window to raise `cwnd_bytes` to (the
    /// reading plus one datagram, at most the cut), or None when the
    /// window already holds it or the reading is more than an eighth above
    /// the exit window. Disarms either way.
    pub fn on_round(
        &mut self,
        cwnd_bytes: usize,
        pipe_bytes: f64,
        max_datagram_size: usize,
    ) -> Option<usize> {
        let Armed {
            exit_bytes,
            cut_bytes,
        } = self.armed.take()?;
        let reading_bytes = pipe_bytes.max(0.0) as usize;
        if reading_bytes > exit_bytes + exit_bytes / RECHECK_MAX_RAISE_DIVISOR {
            return None;
        }
        let target_bytes = reading_bytes
            .saturating_add(max_datagram_size)
            .min(cut_bytes);
        (target_bytes > cwnd_bytes).then_some(target_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MDS: usize = 1200;

    #[test]
    fn an_under_read_exit_is_raised_to_the_pipe_read_again() {
        let mut check = PipeRecheck::default();
        // Exit at 920 packets, the paper's cut 1750: readings up to
        // 920 + 920/8 = 1035 packets count.
        check.arm(920 * MDS, 1750 * MDS);
        assert!(check.armed());
        let raised = check.on_round(921 * MDS, 1000.0 * MDS as f64, MDS);
        assert_eq!(raised, Some(1001 * MDS), "the reading plus one packet");
        assert!(!check.armed(), "one round only");
        assert_eq!(check.on_round(921 * MDS, 1000.0 * MDS as f64, MDS), None);
    }

    #[test]
    fn a_reading_more_than_an_eighth_above_the_exit_raises_nothing() {
        let mut check = PipeRecheck::default();
        check.arm(800 * MDS, 1750 * MDS);
        assert_eq!(
            check.on_round(800 * MDS, 900.0 * MDS as f64, MDS),
            Some(901 * MDS),
            "an eighth above: still a misread pipe"
        );
        check.arm(800 * MDS, 1750 * MDS);
        assert_eq!(check.on_round(800 * MDS, 901.0 * MDS as f64, MDS), None);
        assert!(!check.armed(), "disarmed all the same");
    }

    #[test]
    fn the_raise_stops_at_the_cut() {
        let mut check = PipeRecheck::default();
        check.arm(800 * MDS, 840 * MDS);
        assert_eq!(
            check.on_round(800 * MDS, 880.0 * MDS as f64, MDS),
            Some(840 * MDS)
        );
    }

    #[test]
    fn a_right_or_high_exit_window_is_kept() {
        let mut check = PipeRecheck::default();
        check.arm(1000 * MDS, 1750 * MDS);
        // The reading plus a packet is what the window holds already.
        assert_eq!(check.on_round(1001 * MDS, 1000.0 * MDS as f64, MDS), None);
        check.arm(1000 * MDS, 1750 * MDS);
        assert_eq!(check.on_round(1000 * MDS, 700.0 * MDS as f64, MDS), None);
        assert!(!check.armed());
    }

    #[test]
    fn an_exit_at_the_cut_or_a_disarmed_check_raises_nothing() {
        let mut check = PipeRecheck::default();
        check.arm(1750 * MDS, 1750 * MDS);
        assert!(!check.armed(), "the paper's own window");
        assert_eq!(check.on_round(1000 * MDS, 1500.0 * MDS as f64, MDS), None);
        check.arm(900 * MDS, 1750 * MDS);
        check.disarm();
        assert_eq!(check.on_round(900 * MDS, 1000.0 * MDS as f64, MDS), None);
    }
}
