/*
 * The help registry (help.h) as a bash completion script.
 *
 * The script defines _fleetsim and registers it for fleetsim.  The first word
 * completes to a command or a program option; after a command, a word that
 * starts with '-' completes to that command's options, the word after an
 * option that takes a value to what the value may be, and any other word to
 * the command's operand.  What a value or an operand may be follows from its
 * name (help.h): DIR directories, COMMAND command names, FILE (and any other
 * operand) file names, an option's choices those words, and anything else
 * (a count, a duration, an expression) nothing: the user types it.  Both
 * `--name value` and `--name=value` complete.  It needs bash 4 (compopt,
 * mapfile), not the bash-completion package.
 */
#include <stdio.h>
#include <string.h>

#include "help.h"

/* 'd' directories, 'c' commands, 'f' files, 0 nothing: for an operand, or
 * (operand 0) an option's argument. */
static int fs__kind(const char *arg, int operand)
{
    if (!arg)
        return 0;
    if (strstr(arg, "DIR"))
        return 'd';
    if (strstr(arg, "COMMAND"))
        return 'c';
    return operand || strcmp(arg, "FILE") == 0 ? 'f' : 0;
}

/* The case arms for the word after an option that takes a value: one an
 * option with something to offer, one for all the rest (the value is typed). */
static void fs__values(FILE *fp, const fs_cli_table *t)
{
    int typed = 0, any = 0;
    for (int i = 0; i < t->n; i++)
        any |= t->options[i].arg != NULL;
    if (!any)
        return;
    fputs("        case $prev in\n", fp);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < t->n; i++) {
            const fs_cli_option *o = &t->options[i];
            const char *choices = fs_cli_choices(t, i);
            int kind = fs__kind(o->arg, 0);
            if (!o->arg || (pass == 0) != (choices || kind))
                continue;
            fputs(pass == 0 || !typed++ ? "        " : "|", fp);
            if (o->letter)
                fprintf(fp, "-%c|", o->letter);
            fprintf(fp, "--%s", o->name);
            if (pass == 1)
                continue;
            if (choices)
                fprintf(fp, ") _fleetsim_reply w \"%s\"; return 0 ;;\n", choices);
            else
                fprintf(fp, ") _fleetsim_reply %c; return 0 ;;\n", kind);
        }
    }
    if (typed)
        fputs(") return 0 ;;\n", fp);
    fputs("        esac\n", fp);
}

/* Every option of a table, short and long, as one word list. */
static void fs__words(FILE *fp, const fs_cli_table *t)
{
    for (int i = 0; i < t->n; i++) {
        if (t->options[i].letter)
            fprintf(fp, "-%c ", t->options[i].letter);
        fprintf(fp, "--%s%s", t->options[i].name, i + 1 < t->n ? " " : "");
    }
}

int fs_cli_help_bash(FILE *fp)
{
    fputs("# bash completion for fleetsim(1), written by 'fleetsim help --completion bash'\n"
          "# from the command line's help registry (sim/cli/help.c): change that, not this.\n"
          "\n"
          "# _fleetsim_reply KIND [WORDS]: the completions of $cur (the caller's) that are\n"
          "# w: among WORDS, c: command names, d: directories, f: file names.\n"
          "_fleetsim_reply()\n"
          "{\n"
          "    case $1 in\n"
          "    w) mapfile -t COMPREPLY < <(compgen -W \"$2\" -- \"$cur\") ;;\n"
          "    c) mapfile -t COMPREPLY < <(compgen -W \"$commands\" -- \"$cur\") ;;\n"
          "    d) compopt -o filenames 2>/dev/null\n"
          "       mapfile -t COMPREPLY < <(compgen -d -- \"$cur\") ;;\n"
          "    f) compopt -o filenames 2>/dev/null\n"
          "       mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") ;;\n"
          "    esac\n"
          "}\n"
          "\n"
          "_fleetsim()\n"
          "{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words operand\n"
          "    local commands=\"",
          fp);
    for (int i = 0; i < fs_cli_help_n_commands; i++)
        fprintf(fp, "%s%s", fs_cli_help_commands[i].name, i + 1 < fs_cli_help_n_commands ? " " : "");
    fputs("\"\n"
          "    COMPREPLY=()\n"
          "    # bash splits --name=value at the '=' (COMP_WORDBREAKS).\n"
          "    if [[ $cur == = ]]; then\n"
          "        cur=\n"
          "    elif [[ $prev == = ]] && (( COMP_CWORD > 2 )); then\n"
          "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
          "    fi\n"
          "    if (( COMP_CWORD == 1 )); then\n"
          "        _fleetsim_reply w \"$commands ",
          fp);
    fs__words(fp, fs_cli_help_program.options);
    fputs("\"\n"
          "        return 0\n"
          "    fi\n"
          "    case ${COMP_WORDS[1]} in\n",
          fp);
    for (int i = 0; i < fs_cli_help_n_commands; i++) {
        const fs_cli_command *c = &fs_cli_help_commands[i];
        int kind = fs__kind(c->operand, 1);
        fprintf(fp, "    %s)\n", c->name);
        fs__values(fp, c->options);
        fputs("        words=\"", fp);
        fs__words(fp, c->options);
        fprintf(fp, "\" operand=%c ;;\n", kind ? kind : '-');
    }
    fputs("    *)\n"
          "        return 0 ;;\n"
          "    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        _fleetsim_reply w \"$words\"\n"
          "    else\n"
          "        _fleetsim_reply \"$operand\"\n"
          "    fi\n"
          "    return 0\n"
          "}\n"
          "\n"
          "complete -F _fleetsim fleetsim\n",
          fp);
    return 0;
}
