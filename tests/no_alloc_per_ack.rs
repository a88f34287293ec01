//! No allocation per ACK: once a connection is past its start, every
//! vegas-cc controller, and the quiche adapter around it, handle sends and
//! ACK frames without touching the heap. A counting global allocator
//! counts this thread's allocations while the common ACK sequence
//! (`tests/support/ack_sequence.rs`) is replayed.

use std::alloc::GlobalAlloc;
use std::alloc::Layout;
use std::alloc::System;
use std::cell::Cell;
use std::time::Instant;

use quiche::congestion::CongestionController;
use quiche_vegas::adapter::Adapter;
use quiche_vegas::vegas_cc;
use quiche_vegas::vegas_cc::spec;

#[path = "support/ack_sequence.rs"]
mod ack_sequence;

use ack_sequence::sequence;
use ack_sequence::Frame;
use std::time::Duration;

struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// count is a thread-local `Cell` with a const initialiser, which neither
// allocates nor needs a destructor.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations() -> u64 {
    ALLOCATIONS.with(|n| n.get())
}

/// Frames replayed before counting: the start (slow start, the first
/// rounds) may size buffers once.
const WARM_UP_FRAMES: usize = 10_000;
/// Frames counted: about 9.6 s of the path, several periods of its queue
/// and one loss, so every controller takes increase and decrease
/// decisions and handles a loss.
const COUNTED_FRAMES: usize = 50_000;

fn controller(name: &str) -> Box<dyn vegas_cc::Controller> {
    spec::build(
        name,
        &ack_sequence::params(name),
        10,
        ack_sequence::DATAGRAM_BYTES,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn split() -> (Vec<Frame>, Vec<Frame>) {
    let mut frames = sequence(WARM_UP_FRAMES + COUNTED_FRAMES);
    let counted = frames.split_off(WARM_UP_FRAMES);
    (frames, counted)
}

#[test]
fn vegas_cc_controllers_allocate_nothing_per_ack() {
    let (warm_up, counted) = split();
    for name in spec::NAMES {
        let mut c = controller(name);
        let mut acked = Vec::with_capacity(8);
        let start = Instant::now();
        ack_sequence::replay_vegas_cc(c.as_mut(), &warm_up, start, &mut acked);
        let cwnd_before = c.cwnd_bytes();
        let before = allocations();
        let records = ack_sequence::replay_vegas_cc(c.as_mut(), &counted, start, &mut acked);
        let allocated = allocations() - before;
        assert_eq!(
            allocated, 0,
            "{name}: {allocated} allocations in {COUNTED_FRAMES} ACK frames"
        );
        // The controller worked while it was counted.
        assert_ne!(c.cwnd_bytes(), cwnd_before, "{name}: the window moved");
        if name != "newreno" {
            assert!(records > 0, "{name}: decision records");
        }
    }
}

#[test]
fn the_quiche_adapter_allocates_nothing_per_ack() {
    let (warm_up, counted) = split();
    for name in spec::NAMES {
        let mut adapter = Adapter::new(controller(name), None);
        let mut acked = Vec::with_capacity(8);
        let start = Instant::now();
        ack_sequence::replay_quiche(&mut adapter, &warm_up, start, &mut acked);
        let cwnd_before = adapter.congestion_window();
        let before = allocations();
        ack_sequence::replay_quiche(&mut adapter, &counted, start, &mut acked);
        let allocated = allocations() - before;
        assert_eq!(
            allocated, 0,
            "{name}: {allocated} allocations in {COUNTED_FRAMES} ACK frames"
        );
        assert_ne!(adapter.congestion_window(), cwnd_before, "{name}");
    }
}

#[test]
fn the_ack_sequence_is_consistent() {
    let frames = sequence(30_000);
    let mut last_at = Duration::ZERO;
    let mut sent = 0;
    for f in &frames {
        assert!(f.at >= last_at, "arrivals in order");
        assert_eq!(f.sent.start, sent, "no send skipped or repeated");
        assert!(f.acked.end <= f.sent.end, "only sent packets are acked");
        assert_eq!(f.removed_before() + 2, f.acked.end, "every packet once");
        last_at = f.at;
        sent = f.sent.end;
    }
    // About one bandwidth-delay product in flight: 40-43 ms at 96 us.
    let in_flight: Vec<usize> = frames[1000..]
        .iter()
        .map(|f| f.bytes_in_flight() / ack_sequence::DATAGRAM_BYTES)
        .collect();
    assert!(in_flight.iter().all(|&p| (415..=450).contains(&p)));
    let rtts: Vec<Duration> = frames.iter().map(|f| f.latest_rtt).collect();
    // The queue is empty at the start and at every period's end.
    assert!(*rtts.iter().min().unwrap() < ack_sequence::BASE_RTT + Duration::from_micros(1));
    assert!(
        *rtts.iter().max().unwrap()
            > ack_sequence::BASE_RTT + ack_sequence::PEAK_QUEUE_DELAY * 9 / 10
    );
    let losses: Vec<u64> = frames.iter().filter_map(|f| f.lost).collect();
    assert_eq!(
        losses,
        [ack_sequence::FIRST_LOSS_FRAME * ack_sequence::PACKETS_PER_FRAME]
    );
}

#[test]
fn the_counter_sees_an_allocation() {
    let before = allocations();
    let v: Vec<u64> = std::hint::black_box(Vec::with_capacity(16));
    assert!(allocations() > before);
    drop(v);
}
