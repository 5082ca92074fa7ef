#include "AssignmentSearch.h"

#include "Format.h"
#include "model/BackendEntry.h"
#include "model/WorkloadText.h"

#include <algorithm>
#include <cmath>

namespace fusescope {

AssignmentSearch::AssignmentSearch(std::vector<std::string> modules, std::vector<std::string> backends,
                                   std::vector<std::string> singleRuns, int exhaustiveLimit)
    : m_modules(std::move(modules))
    , m_backends(std::move(backends))
    , m_singleRuns(std::move(singleRuns)) {
    const double combinations = std::pow(double(m_backends.size()), double(m_modules.size()));
    m_strategy = combinations <= exhaustiveLimit ? "exhaustive" : "greedy";
}

std::string AssignmentSearch::label(const Assignment& assignment) const {
    return mixedLabel(assignment);
}

std::optional<SpeedupEstimate> AssignmentSearch::speedupOf(const Report& report,
                                                           const std::string& name) const {
    const auto* run = report.findBackend(name);
    if (!run || run->status != RunStatus::Ok || (run->accuracy && !run->accuracy->pass))
        return std::nullopt;
    return pairedSpeedup(*run);
}

std::string AssignmentSearch::bestSingle(const Report& report) const {
    std::string best;
    double bestMedian = -1;
    for (const auto& name : m_singleRuns)
        if (auto s = speedupOf(report, name); s && s->median > bestMedian) {
            bestMedian = s->median;
            best = name;
        }
    return best;
}

std::vector<std::string> AssignmentSearch::next(const Report& report) {
    if (m_modules.empty() || m_backends.empty())
        return {};
    for (const auto& label : m_pending) {
        const auto* run = report.findBackend(label);
        if (!run || !run->finished())
            return {}; // the caller runs these first
    }
    std::vector<std::string> proposal;
    if (m_strategy == "exhaustive") {
        if (m_step >= 0)
            return {};
        m_step = 0;
        std::vector<size_t> digits(m_modules.size(), 0);
        while (true) {
            Assignment a;
            for (size_t i = 0; i < m_modules.size(); ++i)
                a.emplace_back(m_modules[i], m_backends[digits[i]]);
            proposal.push_back(label(a));
            size_t i = 0;
            while (i < digits.size() && ++digits[i] == m_backends.size())
                digits[i++] = 0;
            if (i == digits.size())
                break;
        }
    } else if (m_step < 0) {
        // Greedy: start with every module on the best single backend.
        std::string start = bestSingle(report);
        // The best single row may carry a mode or {options}; its bare backend is the fallback.
        auto entry = parseBackendEntry(start);
        const std::string bare = entry ? entry.value().backend : start;
        if (std::find(m_backends.begin(), m_backends.end(), start) == m_backends.end())
            start = std::find(m_backends.begin(), m_backends.end(), bare) != m_backends.end()
                        ? bare
                        : m_backends.front();
        for (const auto& m : m_modules)
            m_current.emplace_back(m, start);
        m_step = 0;
        proposal.push_back(label(m_current));
    } else {
        // The previous step's candidates ran: keep the best one that beats the current assignment
        // beyond the spread, then try the next module.
        if (m_step > 0) {
            const auto current = speedupOf(report, label(m_current));
            Assignment best = m_current;
            std::optional<SpeedupEstimate> bestSpeed = current;
            for (const auto& candidate : m_pending) {
                auto s = speedupOf(report, candidate);
                if (!s || (bestSpeed && !clearlyFaster(*s, *bestSpeed)))
                    continue;
                best = m_current;
                const auto inner = candidate.substr(std::string(kMixedBackend).size() + 1,
                                                    candidate.size() - std::string(kMixedBackend).size() - 2);
                if (auto parsed = parseAssignment(inner))
                    best = parsed.value();
                bestSpeed = s;
            }
            m_current = best;
        }
        if (m_step >= static_cast<int>(m_modules.size())) {
            m_pending.clear();
            return {};
        }
        for (const auto& backend : m_backends) {
            if (backend == m_current[m_step].second)
                continue;
            Assignment a = m_current;
            a[m_step].second = backend;
            proposal.push_back(label(a));
        }
        ++m_step;
    }
    // Never propose the same run twice.
    std::vector<std::string> fresh;
    for (auto& p : proposal)
        if (std::find(m_candidates.begin(), m_candidates.end(), p) == m_candidates.end() &&
            !report.findBackend(p))
            fresh.push_back(p);
    m_candidates.insert(m_candidates.end(), fresh.begin(), fresh.end());
    m_pending = proposal;
    if (fresh.empty() && !proposal.empty())
        return next(report); // all already measured: decide and move on
    return fresh;
}

SearchOutcome AssignmentSearch::outcome(const Report& report) const {
    const auto record = [](const std::optional<SpeedupEstimate>& s) -> std::optional<SpeedupRecord> {
        if (!s)
            return std::nullopt;
        return SpeedupRecord{s->median, s->q1, s->q3, s->pairs};
    };
    SearchOutcome out;
    out.strategy = m_strategy;
    out.modules = m_modules;
    out.backends = m_backends;
    std::optional<SpeedupEstimate> bestMixedSpeed;
    for (const auto& c : m_candidates) {
        const auto* run = report.findBackend(c);
        const auto s = speedupOf(report, c);
        SearchCandidate candidate;
        candidate.label = c;
        candidate.status = run ? toString(run->status) : "pending";
        if (run && run->accuracy)
            candidate.accuracyPass = run->accuracy->pass;
        candidate.speedup = record(s);
        out.candidates.push_back(std::move(candidate));
        if (s && (!bestMixedSpeed || s->median > bestMixedSpeed->median)) {
            out.bestMixed = c;
            bestMixedSpeed = s;
        }
    }
    out.bestMixedSpeedup = record(bestMixedSpeed);
    out.bestSingle = bestSingle(report);
    const auto singleSpeed = out.bestSingle.empty() ? std::nullopt : speedupOf(report, out.bestSingle);
    out.bestSingleSpeedup = record(singleSpeed);
    const std::string& bestMixed = out.bestMixed;
    const std::string& single = out.bestSingle;
    if (bestMixedSpeed && singleSpeed && clearlyFaster(*bestMixedSpeed, *singleSpeed)) {
        out.pick = bestMixed;
        out.verdict = bestMixed + " beats the best single backend " + single +
                      " beyond the measured spread (" + format::ratio(bestMixedSpeed->median) + " vs " +
                      format::ratio(singleSpeed->median) + " over eager)";
    } else if (singleSpeed) {
        out.pick = single;
        out.verdict = bestMixed.empty() ? "no mixed assignment ran successfully; keep " + single
                                        : "no assignment beats " + single +
                                              " beyond the measured spread (best: " + bestMixed + " " +
                                              format::ratio(bestMixedSpeed->median) + " vs " +
                                              format::ratio(singleSpeed->median) + "); keep " + single;
    } else if (bestMixedSpeed) {
        out.pick = bestMixed;
        out.verdict = "no single-backend run to compare with; best assignment " + bestMixed;
    } else {
        out.verdict = "no candidate ran successfully";
    }
    if (bestMixedSpeed && singleSpeed && singleSpeed->median > 0)
        out.gainOverBestSingle = bestMixedSpeed->median / singleSpeed->median;
    return out;
}

} // namespace fusescope
