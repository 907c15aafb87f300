// engine_server: ONNX Runtime and OpenVINO timed in the same seconds as ctein's calls. The
// engines run in a process of their own (benchmarks/engine_peers.py --serve, started from the
// command in CTEIN_ENGINE_PEERS), which times each call itself and answers one line per request;
// bench_attention asks it between its own calls, so that a ratio to an engine is not moved by
// how this shared machine ran minutes earlier or later. The protocol is engine_peers.py's
// docstring.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace ctein::bench {

class engine_server {
public:
    /// Starts `command` under /bin/sh with pipes to its stdin and stdout.
    explicit engine_server(const std::string& command) {
        std::signal(SIGPIPE, SIG_IGN); // a server that ended is told by its closed stdout, below
        int to_server[2], from_server[2];
        if (pipe(to_server) != 0 || pipe(from_server) != 0) throw std::runtime_error("engine_server: pipe");
        pid_ = fork();
        if (pid_ < 0) throw std::runtime_error("engine_server: fork");
        if (pid_ == 0) {
            dup2(to_server[0], STDIN_FILENO);
            dup2(from_server[1], STDOUT_FILENO);
            for (int fd : {to_server[0], to_server[1], from_server[0], from_server[1]}) close(fd);
            execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        close(to_server[0]);
        close(from_server[1]);
        requests_ = fdopen(to_server[1], "w");
        replies_ = fdopen(from_server[0], "r");
    }

    engine_server(const engine_server&) = delete;
    engine_server& operator=(const engine_server&) = delete;

    /// Closing its stdin ends the server.
    ~engine_server() {
        std::fclose(requests_);
        std::fclose(replies_);
        int status = 0;
        waitpid(pid_, &status, 0);
    }

    /// The fields of the reply to `request` ("ok" and name=value fields); a reply of "error"
    /// throws (the row that asked is skipped with it), one of "mismatch" (an fp32 engine that
    /// differs from PyTorch) or a server that ended stops the run: its figures would be wrong.
    std::map<std::string, std::string> ask(const std::string& request) {
        std::fprintf(requests_, "%s\n", request.c_str());
        std::fflush(requests_);
        char* line = nullptr;
        std::size_t capacity = 0;
        const ssize_t length = getline(&line, &capacity, replies_);
        const std::unique_ptr<char, decltype(&std::free)> owned(line, &std::free);
        if (length <= 0) fail("the engine server ended (see its messages above) at: " + request);
        std::string reply(line, static_cast<std::size_t>(length));
        if (reply.back() == '\n') reply.pop_back();
        if (reply.rfind("mismatch ", 0) == 0) fail(reply.substr(9));
        if (reply.rfind("error ", 0) == 0) throw std::runtime_error("engine server: " + reply.substr(6));
        if (reply.rfind("ok", 0) != 0) fail("the engine server answered '" + reply + "' to: " + request);
        std::map<std::string, std::string> fields;
        for (std::size_t start = reply.find('\t'); start != std::string::npos;) {
            const std::size_t end = reply.find('\t', start + 1);
            const std::string field =
                reply.substr(start + 1, end == std::string::npos ? end : end - start - 1);
            const std::size_t equals = field.find('=');
            if (equals != std::string::npos) fields[field.substr(0, equals)] = field.substr(equals + 1);
            start = end;
        }
        return fields;
    }

    /// A field of a reply, as a number.
    static double number(const std::map<std::string, std::string>& reply, const std::string& name) {
        const auto found = reply.find(name);
        if (found == reply.end()) throw std::runtime_error("engine server: no " + name + " in its reply");
        return std::stod(found->second);
    }

private:
    [[noreturn]] static void fail(const std::string& why) {
        std::fprintf(stderr, "bench_attention: %s\n", why.c_str());
        std::exit(1);
    }

    pid_t pid_ = -1;
    std::FILE* requests_ = nullptr;
    std::FILE* replies_ = nullptr;
};

/// The server of this run, started at the first call from CTEIN_ENGINE_PEERS; none without it.
inline engine_server* engine_peers() {
    static const std::unique_ptr<engine_server> server = [] {
        const char* command = std::getenv("CTEIN_ENGINE_PEERS");
        return command && *command ? std::make_unique<engine_server>(command) : nullptr;
    }();
    return server.get();
}

} // namespace ctein::bench
