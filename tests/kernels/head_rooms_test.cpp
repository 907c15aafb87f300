#include <ctein/kernels/head_rooms.hpp>
#include <ctein/kernels/thread_pool.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <vector>

using ctein::kernels::head_room_scope;
using ctein::kernels::head_rooms;

TEST_CASE("a head keeps its room over its pieces, and the next head takes the room given back last",
          "[head_rooms]") {
    head_rooms rooms(4, 2, 2); // 4 heads of 2 pieces, 2 rooms
    CHECK(rooms.enter(0) == 0);
    CHECK(rooms.enter(1) == 1);
    rooms.leave(0);
    CHECK(rooms.enter(0) == 0); // its second piece: the same room
    rooms.leave(1);             // head 1 still has a piece to run: it keeps room 1
    CHECK_THROWS_AS(rooms.enter(2), std::logic_error);
    rooms.leave(0); // head 0's last piece: room 0 is free
    CHECK(rooms.enter(2) == 0);
    rooms.leave(1); // head 1's last piece
    CHECK(rooms.enter(3) == 1);
    CHECK(rooms.of(2) == 0);
    CHECK(rooms.of(3) == 1);
}

TEST_CASE("a head takes the room its thread prefers when it is free", "[head_rooms]") {
    head_rooms rooms(4, 1, 3); // 4 heads of 1 piece, 3 rooms
    CHECK(rooms.enter(0, 2) == 2);
    CHECK(rooms.enter(1, 2) == 0); // taken: the one given back last (rooms start as 0, 1, 2 in that order)
    rooms.leave(0);
    rooms.leave(1); // given back: 2, then 0
    CHECK(rooms.enter(2, 2) == 2);
    CHECK(rooms.enter(3) == 0);
}

TEST_CASE("as many rooms as threads: a room is lent to one head at a time", "[head_rooms]") {
    ctein::kernels::thread_pool& pool = ctein::kernels::thread_pool::instance();
    for (std::size_t threads : {1, 2, 3}) {
        constexpr std::size_t heads = 7, pieces = 5, free = heads;
        head_rooms rooms(heads, pieces, threads);
        // the head holding each room, from its first piece's start to its last piece's end
        std::unique_ptr<std::atomic<std::size_t>[]> holder(new std::atomic<std::size_t>[threads]);
        for (std::size_t r = 0; r < threads; ++r) holder[r] = free;
        std::unique_ptr<std::atomic<std::size_t>[]> ended(new std::atomic<std::size_t>[heads]());
        std::atomic<int> clashes{0};
        // each thread takes a head and claims its pieces, then helps with the others', as the
        // prefill does
        std::unique_ptr<std::atomic<std::size_t>[]> next_piece(new std::atomic<std::size_t>[heads]());
        std::atomic<std::size_t> next_head{0};
        const auto claim = [&](std::size_t head) {
            for (std::size_t i = next_piece[head].fetch_add(1); i < pieces;
                 i = next_piece[head].fetch_add(1)) {
                const head_room_scope scope(rooms, head);
                const std::size_t room = rooms.of(head);
                std::size_t seen = free;
                if (!holder[room].compare_exchange_strong(seen, head) && seen != head) ++clashes;
                if (ended[head].fetch_add(1) + 1 == pieces) holder[room] = free; // before the scope leaves
            }
        };
        // enter() throws when no room is free: the pool rethrows it here
        pool.run(threads, threads, [&](std::size_t) {
            for (std::size_t h = next_head.fetch_add(1); h < heads; h = next_head.fetch_add(1)) claim(h);
            for (std::size_t h = 0; h < heads; ++h) claim(h);
        });
        CHECK(clashes.load() == 0);
        for (std::size_t h = 0; h < heads; ++h) CHECK(ended[h].load() == pieces);
    }
}
