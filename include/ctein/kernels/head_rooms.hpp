// head_rooms: a few rooms of one buffer, lent to the heads a prefill call works on. A head takes a
// room when its first piece starts and gives it back when its last piece ends; the thread's next
// head takes the same room when it is free, so that it packs its keys into lines still in that
// core's cache instead of fresh ones, each of which costs a read from memory before the write
// (with a room per head, a prefill at T = 512 ran 1.02-1.05 x slower on one Cascade Lake core,
// paired calls).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace ctein::kernels {

/// Which room of `rooms` each of `heads` heads holds while its `pieces` pieces run.
///
/// Enough rooms: as many as the threads that run pieces at once, or the heads if fewer (a head
/// holds one room at most). A head holds its room from its first piece's enter() to its last
/// piece's leave(); until then either a thread runs one of its pieces or the thread that took the
/// head still claims them. So each held head has a thread of its own, and a thread entering a
/// head no one holds leaves at most threads - 1 others held.
class head_rooms {
public:
    /// No room: a head's before it enters, and a preference of none.
    static constexpr std::size_t none = ~std::size_t{0};

    head_rooms(std::size_t heads, std::size_t pieces, std::size_t rooms)
        : pieces_(pieces)
        , room_(new std::size_t[heads])
        , ended_(new std::atomic<std::size_t>[heads]()) {
        for (std::size_t h = 0; h < heads; ++h) room_[h] = none;
        for (std::size_t r = rooms; r-- > 0;) free_.push_back(r); // room 0 goes first
    }

    /// A piece of `head` starts: the head's room, taken if it has none: `preferred` if it is free
    /// (the calling thread's own), else the one given back last.
    std::size_t enter(std::size_t head, std::size_t preferred = none) {
        const std::lock_guard lock(mutex_);
        if (room_[head] != none) return room_[head];
        if (free_.empty()) throw std::logic_error("ctein: more heads held at once than a prefill has rooms");
        auto taken = std::find(free_.begin(), free_.end(), preferred);
        if (taken == free_.end()) taken = free_.end() - 1;
        room_[head] = *taken;
        free_.erase(taken);
        return room_[head];
    }

    /// A piece of `head` has ended: after its last piece, the room is free for another head.
    void leave(std::size_t head) {
        if (ended_[head].fetch_add(1, std::memory_order_acq_rel) + 1 != pieces_) return;
        const std::lock_guard lock(mutex_);
        free_.push_back(room_[head]);
    }

    /// The room of `head`, between a piece's enter() and the head's last leave(). Entering took
    /// the lock that set it, so a thread reads the value the head's first piece wrote.
    [[nodiscard]] std::size_t of(std::size_t head) const noexcept { return room_[head]; }

private:
    std::size_t pieces_;
    std::unique_ptr<std::size_t[]> room_;
    std::unique_ptr<std::atomic<std::size_t>[]> ended_;
    std::vector<std::size_t> free_;
    std::mutex mutex_;
};

/// A piece in its head's room: enters in its constructor, leaves in its destructor.
class head_room_scope {
public:
    head_room_scope(head_rooms& rooms, std::size_t head, std::size_t preferred = head_rooms::none)
        : rooms_(rooms)
        , head_(head) {
        rooms_.enter(head_, preferred);
    }
    head_room_scope(const head_room_scope&) = delete;
    head_room_scope& operator=(const head_room_scope&) = delete;
    ~head_room_scope() { rooms_.leave(head_); }

private:
    head_rooms& rooms_;
    std::size_t head_;
};

} // namespace ctein::kernels
